# Jupyter Server settings for running beside sidefile (loaded from /etc/jupyter).
import os

# Security: the token comes from a mounted secret file named by JUPYTER_TOKEN_FILE, never from a
# flag (flags show in ps). Jupyter itself would keep the file's trailing newline as part of the
# token; sidefile strips trailing whitespace from its token file, so strip it here too and both
# sides agree on the same file. Without a token file the server refuses to start rather than
# generating a token nobody knows or running without one.
token_file = os.environ.get("JUPYTER_TOKEN_FILE")
if not token_file:
    raise SystemExit("JUPYTER_TOKEN_FILE is not set: mount the shared token file and name it there")
with open(token_file, encoding="utf-8") as f:
    token = f.read().rstrip()
if not token:
    raise SystemExit(f"{token_file} is empty")
c.ServerApp.token = token  # noqa: F821 (c is Jupyter's config object)
c.ServerApp.password = ""
c.ServerApp.open_browser = False
# No browser UI is served to anyone: sidefile is the only client.
c.ServerApp.allow_origin = ""


def _kernel_channels_without_nagle():
    """Sends kernel messages at once: Jupyter Server 1.x never sets TCP_NODELAY on the kernel
    channels WebSocket, so a kernel's small replies wait for the client's delayed ACK (~40 ms on
    Linux) whenever two go out back to back: a `1+1` round trip took ~50 ms instead of ~15."""
    try:
        from jupyter_server.services.kernels.websocket import KernelWebsocketHandler as handler
    except ImportError:
        try:
            from jupyter_server.services.kernels.handlers import ZMQChannelsHandler as handler
        except ImportError:
            return
    opened = handler.open

    def open_without_nagle(self, *args, **kwargs):
        self.set_nodelay(True)
        return opened(self, *args, **kwargs)

    handler.open = open_without_nagle


_kernel_channels_without_nagle()
