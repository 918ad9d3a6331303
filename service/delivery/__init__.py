"""Everything that leaves the service: the RQ dispatcher of notices and bot turns, and the
mail rendering (templates) and delivery."""
