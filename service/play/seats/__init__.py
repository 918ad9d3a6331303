"""Seats: creating, starting and aborting a match, claiming its seats, and the keys behind them."""
