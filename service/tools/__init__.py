"""The ``portolan`` command, the Python SDK it uses, ``portolan dev`` and operator tools."""
