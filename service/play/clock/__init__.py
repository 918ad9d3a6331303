"""The match clock: deadlines, lateness and the clock view (pure over the meta), and the
players' vacations that pause it."""
