"""Everything that knows the Language Server Protocol lives in this package."""

from .language_server import LayaServer
from .server import create_server

__all__ = ["LayaServer", "create_server"]
