"""What the service tells its operator: Prometheus metrics (:mod:`.metrics`) and structured logs
(:mod:`.logs`). Nothing here knows a game; the rules core, the bots, the proof kernel and the
pictures never import it."""
