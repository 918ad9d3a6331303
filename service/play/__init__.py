"""The use cases: create and claim matches, submit moves, read views, logs and records.
No Flask and no Redis: storage and dispatch are injected (see ``ports``)."""
