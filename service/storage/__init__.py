"""Redis persistence (the only code that speaks Redis commands) and the embedded Redis of
``portolan dev``."""
