"""The ``portolan`` command: run the service, and play from a terminal.

Operator commands: ``dev`` (everything on one machine), ``serve`` (the API), ``worker``,
``mail-in``, ``mail-receiver``, ``rebuild`` (:mod:`.server`), ``archive``. Player commands:
``keygen``, ``create``, ``abort``, ``claim``, ``show``, ``actions``, ``move``, ``resign``,
``back``, ``log``, ``my-turns`` (:mod:`.matches`), ``notices``, ``webhook``, ``record``,
``verify``, ``mail-delegation``, ``attach-key``, ``clock``, ``vacation``, ``bot-run``, ``data``.

Layout: :mod:`.main` is the entry point (the parser and ``main``); one module per group of
commands, each registering its own sub-commands; :mod:`.common` is what they share (keys and
remembered seats in the config folder, the output, the API client). The command modules import
:mod:`.common` and each other's helpers, never :mod:`.main` (docs/architecture.md, "Layers").
"""
