"""Moves: the one commit every log entry goes through, and the moves the server makes itself
(timeouts, bots, stand-ins)."""
