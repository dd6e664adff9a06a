"""Reproduces the README's TensorBoard pictures (docs/images/training_*.png).

Runs the demo into a fresh log directory, serves it with a real TensorBoard on
127.0.0.1, and drives headless Chromium over the DevTools protocol (through
`--remote-debugging-pipe`, so only the standard library is needed): the
scalars dashboard with the loss chart enlarged and outliers not clipped, and
the graph dashboard with the gradient ops opened (gradients > mlp > hidden).

Needs `make demo` (the .venv with tensorboard and tqdm) and Chromium
(Debian: `apt-get install -y chromium`). Run: .venv/bin/python tools/screenshot_tensorboard.py
"""
from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "docs", "images")
SIZE = (1200, 800)

# JavaScript helpers (inside each script's own function scope: the two pages share one
# document); TensorBoard's UI lives in nested shadow DOMs.
HELPERS = r"""
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
function deepAll(predicate) {
  const found = [];
  const walk = node => {
    if (node.nodeType === 1 && predicate(node)) found.push(node);
    if (node.shadowRoot) walk(node.shadowRoot);
    for (const child of node.children || []) walk(child);
  };
  walk(document);
  return found;
}
const byName = name => deepAll(n => n.getAttribute && n.getAttribute('data-name') === name)[0];
"""
SCALARS = "(async () => {" + HELPERS + r"""
  deepAll(n => n.id === 'ignore-y-outlier')[0].click();
  deepAll(n => n.tagName === 'PAPER-ICON-BUTTON' && n.getAttribute('icon') === 'fullscreen')[0]
      .click();
  await sleep(1500);
  return 'ok';
})()
"""
GRAPH = "(async () => {" + HELPERS + r"""
  for (const name of ['gradients', 'gradients/mlp', 'gradients/mlp/hidden']) {
    byName(name).querySelector('.nodeshape')
        .dispatchEvent(new MouseEvent('dblclick', {bubbles: true}));
    await sleep(1200);
  }
  deepAll(n => n.children.length === 0 && /Fit to screen/.test(n.textContent))[0].click();
  await sleep(800);
  deepAll(n => n.tagName === 'svg' && n.id === 'svg')[0]
      .dispatchEvent(new MouseEvent('click', {bubbles: true}));  // deselect: hides the info card
  await sleep(1500);
  return 'ok';
})()
"""


class Chromium:
    """Headless Chromium driven through the DevTools protocol on fds 3 (in) and 4 (out)."""

    def __init__(self, executable: str, profile: str) -> None:
        to_browser, self._write = os.pipe()
        self._read, from_browser = os.pipe()

        def wire_fds() -> None:
            os.dup2(to_browser, 3)
            os.dup2(from_browser, 4)

        self.process = subprocess.Popen(
            [executable, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--hide-scrollbars", f"--user-data-dir={profile}",
             "--remote-debugging-pipe", "about:blank"],
            pass_fds=(3, 4), preexec_fn=wire_fds,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser)
        os.close(from_browser)
        self._buffer = b""
        self._next_id = 0
        page = next(t for t in self.call("Target.getTargets")["targetInfos"]
                    if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"],
                                 flatten=True)["sessionId"]

    def call(self, method: str, session: str = None, **params):
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self._buffer:
                chunk = os.read(self._read, 1 << 16)
                if not chunk:
                    raise RuntimeError("Chromium closed the DevTools pipe")
                self._buffer += chunk
            raw, self._buffer = self._buffer.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def screenshot(self, url: str, script: str, path: str) -> None:
        page = self.session
        self.call("Emulation.setDeviceMetricsOverride", page, width=SIZE[0], height=SIZE[1],
                  deviceScaleFactor=1, mobile=False)
        self.call("Page.navigate", page, url=url)
        time.sleep(5)  # TensorBoard's pages load their data asynchronously
        result = self.call("Runtime.evaluate", page, expression=script, awaitPromise=True,
                           returnByValue=True)
        if result["result"].get("value") != "ok":
            raise RuntimeError(f"page script failed on {url}: {result}")
        data = self.call("Page.captureScreenshot", page, format="png")["data"]
        with open(path, "wb") as stream:
            stream.write(base64.b64decode(data))

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_scalars(base: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{base}/data/plugin/scalars/tags", timeout=5) as reply:
                if b'"loss"' in reply.read():
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError("TensorBoard did not serve the demo's scalars in time")


def main() -> None:
    work = tempfile.mkdtemp()
    logdir = os.path.join(work, "runs")
    bin_dir = os.path.dirname(sys.executable)
    subprocess.run([sys.executable, os.path.join(ROOT, "examples", "breast_cancer.py"),
                    "--logdir", logdir], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    port = free_port()
    server = subprocess.Popen([os.path.join(bin_dir, "tensorboard"), "--logdir", logdir,
                               "--host", "127.0.0.1", "--port", str(port), "--load_fast=false"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    browser = None
    try:
        base = f"http://127.0.0.1:{port}"
        wait_for_scalars(base)
        browser = Chromium(os.environ.get("CHROMIUM", "chromium"), os.path.join(work, "profile"))
        os.makedirs(OUT, exist_ok=True)
        shots = [(f"{base}/?darkMode=false#scalars&_smoothingWeight=0", SCALARS,
                  "training_loss.png"),
                 (f"{base}/?darkMode=false#graphs&run=graph", GRAPH, "training_graph.png")]
        for url, script, name in shots:
            path = os.path.join(OUT, name)
            browser.screenshot(url, script, path)
            print(f"{path}: {os.path.getsize(path) // 1024} KB")
    finally:
        if browser is not None:
            browser.close()
        server.terminate()
        server.wait(timeout=10)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
