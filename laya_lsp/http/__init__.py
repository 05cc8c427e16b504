"""The HTTP front on the engine (FastAPI + uvicorn, the `http` extra): `create_app(engine, settings)`."""

from .app import HttpOptions, create_app

__all__ = ["HttpOptions", "create_app"]
