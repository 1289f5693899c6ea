"""Agent frameworks as clients of the guard, each in its own virtual environment (see ``build``)."""
