"""Running the API with uvicorn on a thread of the service (TCP on loopback or a Unix socket)."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

import uvicorn

from recalld.daemon.api import create_api
from recalld.daemon.config import Config
from recalld.ingest.errors import RecalldError

if TYPE_CHECKING:
    from recalld.daemon.service import Service

START_TIMEOUT = 10.0


class ApiServer:
    def __init__(self, config: Config, service: Service) -> None:
        socket_path = config.get("daemon", "socket")
        host, port = config.get("daemon", "host"), config.get("daemon", "port")
        self.address = f"unix:{socket_path}" if socket_path else f"http://{host}:{port}"
        self._config = uvicorn.Config(
            create_api(service),
            host=host,
            port=port,
            uds=socket_path or None,
            log_config=None,
            log_level="warning",
            access_log=False,
            lifespan="off",
        )
        self._server = uvicorn.Server(self._config)
        self._thread = threading.Thread(target=self._server.run, name="recalld-api", daemon=True)

    def start(self) -> None:
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RecalldError(f"cannot serve the API on {self.address} (in use, or not allowed)")
            time.sleep(0.02)

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=3)
