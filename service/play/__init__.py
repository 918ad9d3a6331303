"""The use cases: create and claim matches, submit moves, read views, logs and records.

No Flask and no Redis: storage and dispatch are injected (see ``ports`` and ``context``). The
folders are layers, each importing only those below it (docs/architecture.md, "Layers"; checked by
``lint-imports``): ``mail`` and ``outward`` over ``seats``, over ``moves``, over ``views``, over
``clock``, over ``context`` and the floor modules beside it. ``matches`` is the front the API, the
workers and the CLI call; nothing in this package imports it."""
