"""A small W3C WebDriver client for headless Chromium: Python's standard library only.

    with Browser() as b:            # starts chromedriver on a free port and a headless Chromium
        b.navigate("file:///tmp/x.html")
        b.execute("return document.title")

Chromium and chromedriver are found as $ATTNVIZ_CHROMIUM / $ATTNVIZ_CHROMEDRIVER, else Debian's
/usr/lib/chromium/chromium (the binary itself, not the /usr/bin/chromium wrapper, whose
/etc/chromium.d settings turn extensions and API keys back on) and chromedriver on PATH.
"""
import base64
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"  # the W3C key of an element reference

# Headless, as root, and with nothing of Chromium's own talking to the network: no first-run page,
# no component/extension/safe-browsing updates, sync, translate, metrics, pings or network time.
# Measured with --log-net-log on Chromium 156, these flags still leave the component updater
# (update.googleapis.com) and the Gaia cookie check (accounts.google.com/ListAccounts) asking, so
# every host name resolves to "not found" in the browser itself: no DNS query or connection leaves
# the machine, while the page's own requests still show in the performance log.
CHROMIUM_ARGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
    "--hide-scrollbars", "--force-device-scale-factor=1",
    "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
    "--disable-component-update", "--disable-default-apps", "--disable-sync", "--disable-extensions",
    "--disable-client-side-phishing-detection", "--disable-domain-reliability", "--no-pings",
    "--safebrowsing-disable-auto-update", "--metrics-recording-only", "--disable-breakpad",
    "--password-store=basic", "--use-mock-keychain", "--no-service-autorun",
    "--disable-features=Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,"
    "AutofillServerCommunication,CertificateTransparencyComponentUpdater,NetworkTimeServiceQuerying",
    "--host-resolver-rules=MAP * ~NOTFOUND",
]


class WebDriverError(Exception):
    pass


def find_program(env, *candidates):
    """$env if set, else the first of candidates (paths or names on PATH) that is an executable."""
    tried = [os.environ[env]] if os.environ.get(env) else list(candidates)
    for c in tried:
        path = shutil.which(c)
        if path:
            return path
    raise WebDriverError(f"{candidates[-1]} not found (tried {', '.join(tried)}; ${env} names another); "
                         "on Debian: apt-get install chromium chromium-driver (scripts/install-deps.sh)")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Browser:
    def __init__(self, width=1400, height=1000, startup_timeout=30):
        chromium = find_program("ATTNVIZ_CHROMIUM", "/usr/lib/chromium/chromium", "chromium")
        chromedriver = find_program("ATTNVIZ_CHROMEDRIVER", "chromedriver")
        self.session = None
        self.log_path = tempfile.mktemp(prefix="attnviz-chromedriver-", suffix=".log")
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.driver = subprocess.Popen(
            [chromedriver, f"--port={self.port}", f"--log-path={self.log_path}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            self._wait_ready(startup_timeout)
            caps = {
                "browserName": "chrome",
                "pageLoadStrategy": "normal",
                "goog:chromeOptions": {"binary": chromium, "args": CHROMIUM_ARGS + [f"--window-size={width},{height}"]},
                "goog:loggingPrefs": {"browser": "ALL", "performance": "ALL"},
            }
            value = self._request("POST", "/session", {"capabilities": {"alwaysMatch": caps}})
            self.session = value["sessionId"]
            self.capabilities = value["capabilities"]
            self.set_viewport(width, height)
        except WebDriverError as e:
            log = self._driver_log()
            self.quit()
            raise WebDriverError(f"{e}\nchromedriver's log (end):\n{log}") from None
        except BaseException:
            self.quit()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.quit()

    # --- transport ---------------------------------------------------------------------------
    def _wait_ready(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.driver.poll() is not None:
                raise WebDriverError(f"chromedriver exited with {self.driver.returncode}: {self._driver_log()}")
            try:
                if self._request("GET", "/status", timeout=2).get("ready"):
                    return
            except (OSError, WebDriverError):
                pass
            time.sleep(0.05)
        raise WebDriverError(f"chromedriver not ready on port {self.port} after {timeout} s")

    def _driver_log(self, tail=1500):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()[-tail:]
        except OSError:
            return "(no chromedriver log)"

    def _request(self, method, path, body=None, timeout=120):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json; charset=utf-8"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                payload = json.loads(r.read() or b"{}")
        except urllib.error.HTTPError as e:
            try:
                payload = json.loads(e.read())
            except ValueError:
                raise WebDriverError(f"{method} {path}: HTTP {e.code}") from None
        value = payload.get("value")
        if isinstance(value, dict) and "error" in value:
            msg = value.get("message", "").split("\n  (Session info")[0]
            raise WebDriverError(f"{method} {path}: {value['error']}: {msg}")
        return value

    def _session(self, method, path, body=None, timeout=120):
        return self._request(method, f"/session/{self.session}{path}", body, timeout)

    # --- commands ----------------------------------------------------------------------------
    def navigate(self, url):
        self._session("POST", "/url", {"url": url})

    def execute(self, script, *args):
        """Runs a function body (`return …`) in the page; a returned Promise is awaited."""
        return self._session("POST", "/execute/sync", {"script": script, "args": list(args)})

    def execute_async(self, script, *args, timeout_ms=30000):
        """Runs a function body that calls arguments[arguments.length - 1](result) when done."""
        self._session("POST", "/timeouts", {"script": timeout_ms})
        return self._session("POST", "/execute/async", {"script": script, "args": list(args)},
                             timeout=timeout_ms / 1000 + 30)

    def find(self, css):
        return self._session("POST", "/element", {"using": "css selector", "value": css})[ELEMENT]

    def find_all(self, css):
        return [e[ELEMENT] for e in self._session("POST", "/elements", {"using": "css selector", "value": css})]

    def click(self, element):
        self._session("POST", f"/element/{element}/click", {})

    def text(self, element):
        """The element's rendered text, as a user sees it (empty when it is hidden)."""
        return self._session("GET", f"/element/{element}/text")

    def attribute(self, element, name):
        return self._session("GET", f"/element/{element}/attribute/{name}")

    def move_pointer(self, x, y):
        """A real mouse move to client (viewport) coordinates x, y in CSS pixels."""
        move = {"type": "pointerMove", "duration": 0, "origin": "viewport", "x": round(x), "y": round(y)}
        self._session("POST", "/actions", {"actions": [
            {"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": [move]}]})

    def click_at(self, x, y):
        """A real mouse click at client (viewport) coordinates x, y in CSS pixels."""
        move = {"type": "pointerMove", "duration": 0, "origin": "viewport", "x": round(x), "y": round(y)}
        self._session("POST", "/actions", {"actions": [
            {"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
             "actions": [move, {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]}]})

    def log(self, kind):
        """Log entries of kind "browser" or "performance" since the last call (chromedriver's
        legacy endpoint; Debian 12's chromedriver answers POST /session/{id}/se/log)."""
        try:
            return self._session("POST", "/se/log", {"type": kind})
        except WebDriverError as e:
            if "unknown command" not in str(e):
                raise
            return self._session("POST", "/log", {"type": kind})

    def console_errors(self):
        return [e for e in self.log("browser") if e.get("level") == "SEVERE"]

    def requested_urls(self):
        """The URL of every request the page made (Network.requestWillBeSent in the performance log)."""
        urls = []
        for entry in self.log("performance"):
            message = json.loads(entry["message"])["message"]
            if message.get("method") == "Network.requestWillBeSent":
                urls.append(message["params"]["request"]["url"])
        return urls

    def set_viewport(self, width, height):
        """Resizes the window so that the page's viewport is width × height CSS pixels
        (--window-size sets the window, whose frame headless Chromium still subtracts)."""
        inner = self.execute("return [innerWidth, innerHeight]")
        rect = self._session("GET", "/window/rect")
        self._session("POST", "/window/rect", {"width": rect["width"] + width - inner[0],
                                               "height": rect["height"] + height - inner[1]})

    def screenshot(self):
        return base64.b64decode(self._session("GET", "/screenshot"))

    def quit(self):
        """Ends the session and always stops chromedriver (and with it the browser)."""
        try:
            if self.session:
                self._session("DELETE", "", timeout=15)
        except Exception:
            pass
        self.session = None
        if self.driver.poll() is None:
            self.driver.terminate()
            try:
                self.driver.wait(10)
            except subprocess.TimeoutExpired:
                self.driver.kill()
                self.driver.wait()
        try:  # whatever chromedriver left behind in its own process group (a browser it lost)
            os.killpg(self.driver.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            os.unlink(self.log_path)
        except OSError:
            pass
