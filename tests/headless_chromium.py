"""Headless Chromium on a page served from 127.0.0.1: started, and ended with everything it left behind.

Shared by the WebGL 2 backend test (tests/vpl_core/backends/webgl_support.py) and the Khronos Sample Viewer
harness (tests/sample_viewer.py). Chromium runs with the flags this machine needs (no sandbox as root, no GPU,
software WebGL on SwiftShader, no background networking: the network is closed), in its own profile directory
and its own process group, which is ended by its id (SIGTERM, then SIGKILL after 20 s).
"""

from __future__ import annotations

import contextlib
import http.server
import os
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--enable-unsafe-swiftshader",  # software WebGL, opted in (trusted, local content only)
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@contextlib.contextmanager
def chromium_page(server: http.server.HTTPServer, *, profile_prefix: str = "vpl-chromium-") -> Iterator[Callable[[], str]]:
    """Serve `server` on a thread and open its root page in headless Chromium for the `with` block.

    Yields a function returning what Chromium wrote to stderr so far (its last 3000 characters, D-Bus noise
    left out), for error messages. On leaving: Chromium's process group ended, the server shut down and
    closed, the profile directory removed.
    """
    executable = chromium()
    assert executable is not None, "chromium not found (Debian package chromium, installed by scripts/bootstrap.sh)"
    host, port = server.server_address[:2]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    profile = tempfile.mkdtemp(prefix=profile_prefix)
    log = tempfile.TemporaryFile()  # noqa: SIM115 - closed in the finally below, after Chromium has ended
    try:
        process = subprocess.Popen(
            [executable, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", f"http://{host!s}:{port}/"],
            stdout=subprocess.DEVNULL,
            stderr=log,
            start_new_session=True,
        )
    except BaseException:
        server.shutdown()
        server.server_close()
        log.close()
        shutil.rmtree(profile, ignore_errors=True)
        raise

    def chromium_said() -> str:
        log.seek(0)
        lines = [line for line in log.read().decode(errors="replace").splitlines() if "dbus" not in line]
        return "\n".join(lines)[-3000:]

    try:
        yield chromium_said
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        server.shutdown()
        server.server_close()
        log.close()
        shutil.rmtree(profile, ignore_errors=True)
