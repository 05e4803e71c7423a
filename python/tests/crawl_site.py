"""A local site for the Scrapy tests: PAGES generated interlinked pages
served by http.server on 127.0.0.1 (a free port), with duplicate links,
#fragment links, absolute and relative forms and redirects
(/r/N answers 301 to /p/N.html), and an access log of every request
with the client's User-Agent."""

import collections
import http.server
import random
import sys
import threading
from typing import List, Tuple

PAGES = 2000


def links(i: int, n: int = PAGES) -> List[str]:
    """The links of page i: its successor (so that every page is reachable
    from any page), random pages, one of them twice, one with a fragment,
    one through a redirect."""
    rnd = random.Random(i)
    a, b, c, d = (rnd.randrange(n) for _ in range(4))
    return [f"/p/{(i + 1) % n}.html", f"{a}.html", f"/p/{a}.html", f"/p/{b}.html#s{rnd.randrange(9)}",
            f"http://{{host}}/p/{c}.html", f"/r/{d}", f"/p/{(i + 1) % n}.html#top"]


def page(i: int, host: str) -> bytes:
    body = "".join(f'<a href="{h.format(host=host)}">link</a>\n' for h in links(i))
    return f"<html><head><title>page {i}</title></head><body><h1>{i}</h1>\n{body}</body></html>".encode()


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a crawler killed mid-request
            super().handle_error(request, client_address)  # type: ignore[arg-type]


class Site:
    """The site served on 127.0.0.1 from a thread, until stop()."""

    def __init__(self) -> None:
        self.log: List[Tuple[str, str]] = []  # (path, User-Agent)
        self.lock = threading.Lock()
        site = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                with site.lock:
                    site.log.append((self.path, self.headers.get("User-Agent", "")))
                parts = self.path.split("/")
                if len(parts) == 3 and parts[1] == "r" and parts[2].isdigit():
                    self.send_response(301)
                    self.send_header("Location", f"/p/{parts[2]}.html")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if len(parts) == 3 and parts[1] == "p" and parts[2].endswith(".html") and parts[2][:-5].isdigit() \
                        and int(parts[2][:-5]) < PAGES:
                    body = page(int(parts[2][:-5]), self.headers.get("Host", ""))
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html")
                else:
                    body = b"not found"
                    self.send_response(404)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = _Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def pages_fetched(self, agent: str = "") -> collections.Counter:
        """How many times each page /p/N.html was fetched (by agent, when given)."""
        with self.lock:
            return collections.Counter(p for p, ua in self.log if p.startswith("/p/") and agent in ua)

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def all_pages() -> List[str]:
    return [f"/p/{i}.html" for i in range(PAGES)]
