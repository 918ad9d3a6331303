"""Portolan: a play-by-email server for El Capitán, Nauticus and Ophir."""

__version__ = "0.1.0"
