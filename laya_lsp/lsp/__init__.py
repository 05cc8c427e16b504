"""Everything that knows the Language Server Protocol lives in this package."""

from .server import LayaServer, create_server

__all__ = ["LayaServer", "create_server"]
