"""cdp.py - a small driver for headless Chromium over the DevTools protocol, for the report tests.

Chromium runs with --remote-debugging-pipe: it reads protocol commands from file descriptor 3 and
writes replies and events to file descriptor 4, each message JSON followed by a NUL byte (no
WebSocket, no network port). Protocol reference: https://chromedevtools.github.io/devtools-protocol/
(Target.createTarget / attachToTarget with flatten, Page.navigate, Runtime.evaluate,
Page.captureScreenshot, Runtime.consoleAPICalled, Runtime.exceptionThrown, Log.entryAdded).

    with Browser(chromium_path) as b:
        page = b.load("file:///.../index.html")   # waits for the load event
        page.errors          # console errors, uncaught exceptions, failed loads, CSP violations
        page.evaluate("document.title")
        page.screenshot("shot.png")
"""
import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time


class CdpError(Exception):
    pass


class Browser:
    def __init__(self, chromium, timeout=60):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="sha1kit-chromium-")
        cmd_r, self.cmd_w = os.pipe()
        self.resp_r, resp_w = os.pipe()

        def child_fds():
            # fd 3: commands to Chromium, fd 4: its replies (what --remote-debugging-pipe uses).
            os.dup2(cmd_r, 3)
            os.dup2(resp_w, 4)

        args = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--remote-debugging-pipe",
                f"--user-data-dir={self.profile}", "about:blank"]
        # Chromium also writes under $HOME (crash reports, dconf cache): give it the profile.
        env = dict(os.environ, HOME=self.profile, XDG_CONFIG_HOME=os.path.join(self.profile, "config"),
                   XDG_CACHE_HOME=os.path.join(self.profile, "cache"))
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, preexec_fn=child_fds, pass_fds=(3, 4),
                                     close_fds=True, env=env)
        os.close(cmd_r)
        os.close(resp_w)
        self.next_id = 1
        self.buf = b""
        self.events = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.proc.poll() is None:
            try:
                self.send("Browser.close")
            except (CdpError, OSError):
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for fd in (self.cmd_w, self.resp_r):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)

    def _read_message(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CdpError("timed out waiting for Chromium")
            ready, _, _ = select.select([self.resp_r], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.resp_r, 1 << 16)
            if not chunk:
                raise CdpError(f"Chromium closed the protocol pipe (exit status {self.proc.poll()})")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=None):
        """Send a command and return its result; events that arrive meanwhile are kept."""
        mid = self.next_id
        self.next_id += 1
        msg = {"id": mid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == mid:
                if "error" in m:
                    raise CdpError(f"{method}: {m['error'].get('message')}")
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def wait_event(self, method, session, seconds):
        deadline = time.monotonic() + seconds
        while True:
            for i, e in enumerate(self.events):
                if e["method"] == method and e.get("sessionId") == session:
                    return self.events.pop(i)
            self.events.append(self._read_message(deadline))

    def drain(self, seconds):
        """Collect the events of the next `seconds`."""
        deadline = time.monotonic() + seconds
        try:
            while True:
                self.events.append(self._read_message(deadline))
        except CdpError as e:
            if "timed out" not in str(e):
                raise

    def load(self, url, width=1400, height=900):
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for method in ("Page.enable", "Runtime.enable", "Log.enable"):
            self.send(method, session=session)
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=session)
        self.events = [e for e in self.events if e.get("sessionId") != session]
        nav = self.send("Page.navigate", {"url": url}, session=session)
        if nav.get("errorText"):
            raise CdpError(f"cannot open {url}: {nav['errorText']}")
        self.wait_event("Page.loadEventFired", session, self.timeout)
        self.drain(0.5)  # messages that follow the load event (late image errors, ...)
        return Page(self, session, [e for e in self.events if e.get("sessionId") == session])


def _describe(e):
    p = e.get("params", {})
    if e["method"] == "Runtime.consoleAPICalled":
        args = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
        return f"console.{p.get('type')}: {args}"
    if e["method"] == "Runtime.exceptionThrown":
        d = p.get("exceptionDetails", {})
        return f"uncaught exception: {d.get('exception', {}).get('description') or d.get('text')}"
    entry = p.get("entry", {})
    return f"{entry.get('source')} {entry.get('level')}: {entry.get('text')} {entry.get('url', '')}".strip()


class Page:
    def __init__(self, browser, session, events):
        self.browser = browser
        self.session = session
        self.errors = []
        for e in events:
            m, p = e["method"], e.get("params", {})
            if (m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert")) \
                    or m == "Runtime.exceptionThrown" \
                    or (m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error"):
                self.errors.append(_describe(e))

    def evaluate(self, expression):
        r = self.browser.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                   "awaitPromise": True}, session=self.session)
        if "exceptionDetails" in r:
            raise CdpError(f"evaluate {expression[:60]!r}: {r['exceptionDetails'].get('text')}")
        return r["result"].get("value")

    def screenshot(self, path):
        r = self.browser.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True},
                              session=self.session)
        with open(path, "wb") as f:
            f.write(base64.b64decode(r["data"]))
