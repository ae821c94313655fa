"""The built book, opened in a real browser (headless Chromium): math rendered by the
MathJax shipped with the site, every image and internal link resolving, every chapter in
the navigation. Screenshots of every chapter page are kept in _build/screenshots/ (not
committed)."""

import functools
import http.server
import json
from pathlib import Path
import re
import shutil
import subprocess
import sys
import threading
from urllib.parse import unquote, urljoin, urlparse

from bs4 import BeautifulSoup
import pytest
import yaml


ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = (
    shutil.which("chromium")
    or shutil.which("chromium-browser")
    or shutil.which("google-chrome")
)
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="Chromium is not installed (.ci/run installs "
        "Debian's chromium when it can); the browser "
        "test needs it",
    ),
]
CHROME_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--virtual-time-budget=15000",
    "--window-size=1200,900",
]


def chapters():
    """The pages of _toc.yml, in order, as paths without suffix."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    return [toc["root"]] + [
        chapter["file"] for part in toc["parts"] for chapter in part["chapters"]
    ]


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """Build the book into a temporary folder and serve it on 127.0.0.1."""
    out = tmp_path_factory.mktemp("book")
    jupyter_book = Path(sys.executable).parent / "jupyter-book"
    subprocess.run(
        [
            str(jupyter_book),
            "build",
            str(ROOT),
            "--path-output",
            str(out),
            "-W",
            "-n",
            "--keep-going",
        ],
        check=True,
        capture_output=True,
    )
    html = out / "_build" / "html"
    handler = functools.partial(QuietHandler, directory=str(html))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield html, f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


def rendered(url, profile, screenshot=None):
    """The DOM of `url` after its scripts ran, as Chromium saw it."""
    flags = CHROME_FLAGS + [f"--user-data-dir={profile}"]
    if screenshot:
        subprocess.run(
            [CHROMIUM, *flags, f"--screenshot={screenshot}", url],
            capture_output=True,
            timeout=120,
        )
    result = subprocess.run(
        [CHROMIUM, *flags, "--dump-dom", url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return BeautifulSoup(result.stdout, "html.parser")


SHOTS = ROOT / "_build" / "screenshots"


@pytest.fixture(scope="module")
def pages(site, tmp_path_factory):
    """Every chapter page as Chromium rendered it; a fresh screenshot of each in
    SHOTS."""
    html, base = site
    shutil.rmtree(SHOTS, ignore_errors=True)  # no leftovers from an earlier run
    SHOTS.mkdir(parents=True)
    profile = tmp_path_factory.mktemp("chromium-profile")
    return {
        page: rendered(
            base + page + ".html", profile, SHOTS / (Path(page).name + ".png")
        )
        for page in chapters()
    }


def visible_text(dom):
    """Text of the article outside code, math that MathJax rendered, and scripts."""
    article = BeautifulSoup(
        str(dom.select_one("article") or dom), "html.parser"
    )  # a copy: dom stays whole
    for tag in article.select("pre, code, script, style, mjx-container, .highlight"):
        tag.decompose()
    return article.get_text(" ")


def test_every_page_renders_its_math_with_the_shipped_mathjax(pages):
    for page, dom in pages.items():
        assert dom.select_one("article"), f"{page}: the page did not render"
        scripts = [s.get("src", "") for s in dom.select("script[src]")]
        if dom.select("mjx-container, .math"):
            assert any("_static/mathjax/tex-chtml.js" in s for s in scripts), (
                f"{page}: MathJax is not the local copy"
            )
        assert not any("cdn" in s for s in scripts if "mathjax" in s.lower()), (
            f"{page}: MathJax from a CDN"
        )
        text = visible_text(dom)
        leftovers = re.findall(r"\\\(|\\\[|\$\$", text)
        assert not leftovers, f"{page}: unrendered math {leftovers[:3]}"
        assert not dom.select("mjx-merror, merror, .MathJax_Error"), (
            f"{page}: MathJax error"
        )
    with_math = [page for page, dom in pages.items() if dom.select("mjx-container")]
    assert len(with_math) >= 8, f"only {with_math} have rendered math"


def test_every_image_and_internal_link_resolves(site, pages):
    html, base = site
    for page, dom in pages.items():
        page_url = base + page + ".html"
        for img in dom.select("img[src]"):
            src = img["src"]
            if src.startswith("data:"):
                assert len(src) > 100, f"{page}: empty inline image"
                continue
            path = html / unquote(urlparse(urljoin(page_url, src)).path).lstrip("/")
            assert path.is_file() and path.stat().st_size > 0, (
                f"{page}: image {src} does not load"
            )
        assert all(svg.find(True) for svg in dom.select("svg")), f"{page}: an empty SVG"
        for link in dom.select("a[href]"):
            href = link["href"]
            if urlparse(href).scheme in (
                "http",
                "https",
                "mailto",
            ) and not href.startswith(base):
                continue
            target = urlparse(urljoin(page_url, href))
            path = html / unquote(target.path).lstrip("/")
            if path.is_dir():
                path = path / "index.html"
            assert path.is_file(), f"{page}: broken link {href}"
            if target.fragment and path.suffix == ".html":
                ids = {
                    tag.get("id")
                    for tag in BeautifulSoup(
                        path.read_text(encoding="utf-8"), "html.parser"
                    ).select("[id]")
                }
                assert target.fragment in ids, (
                    f"{page}: link {href} to a missing anchor"
                )


def test_navigation_lists_every_chapter(pages):
    for page, dom in pages.items():
        nav = dom.select_one("nav.bd-docs-nav, .bd-sidebar-primary")
        assert nav is not None, f"{page}: no navigation"
        linked = {
            urlparse(a["href"]).path.split("/")[-1] for a in nav.select("a[href]")
        }
        for chapter in chapters()[1:]:
            if chapter != page:  # the current page links to itself as "#"
                assert Path(chapter).name + ".html" in linked, (
                    f"{page}: the navigation lacks {chapter}"
                )


def test_exercise_solutions_are_hidden_by_default(pages):
    for page, dom in pages.items():
        titles = [title.get_text() for title in dom.select(".admonition-title")]
        if not any(title.startswith("Exercise") for title in titles):
            continue  # no exercise on this page (a mention is not one)
        hidden = dom.select(".tag_hide-cell details, details.hide")
        assert hidden and all(not d.has_attr("open") for d in hidden), (
            f"{page}: solutions are not hidden"
        )


def test_a_screenshot_per_chapter(pages):
    missing = [
        page
        for page in pages
        if not (SHOTS / (Path(page).name + ".png")).is_file()
        or (SHOTS / (Path(page).name + ".png")).stat().st_size < 1000
    ]
    assert not missing, f"no screenshot for {missing}"


# Loaded beside the book, same origin: opens one page in a 1280-px-wide frame, waits for
# MathJax, and lists every element of the article that needs horizontal scrolling or
# sticks out of it.
OVERFLOW_PROBE = """<!DOCTYPE html><html><body><pre id="result">pending</pre>
<iframe id="page" style="width:1280px;height:900px;border:0"></iframe>
<script>
const frame = document.getElementById("page");
frame.src = new URLSearchParams(location.search).get("page");
frame.onload = () => setTimeout(() => {
  const doc = frame.contentDocument, article = doc.querySelector("article") || doc.body;
  const right = article.getBoundingClientRect().right, found = [], reported = [];
  for (const el of article.querySelectorAll("*")) {
    const style = frame.contentWindow.getComputedStyle(el);
    if (style.display === "none" || el.closest("details:not([open])")) continue;
    // reported with its wide ancestor
    if (reported.some(r => r.contains(el))) continue;
    const box = el.getBoundingClientRect();
    const scrolls = ["auto", "scroll"].includes(style.overflowX) &&
                    el.scrollWidth > el.clientWidth + 1;
    if (scrolls || box.right > right + 1) {
      reported.push(el);
      found.push(el.tagName.toLowerCase() + "." + [...el.classList].join(".") + " " +
                 (scrolls ? "scrolls " + el.scrollWidth + ">" + el.clientWidth
                          : "sticks out to " + Math.round(box.right) + ">" +
                            Math.round(right)) +
                 ": " + (el.textContent || "").trim().slice(0, 60));
    }
  }
  document.getElementById("result").textContent = JSON.stringify(found);
}, 4000);
</script></body></html>"""


def overflowing(site, page, profile):
    """Elements of `page`'s article that need horizontal scrolling at a 1280-px
    window."""
    html, base = site
    (html / "_overflow_probe.html").write_text(OVERFLOW_PROBE)
    flags = [f for f in CHROME_FLAGS if not f.startswith("--window-size")]
    result = subprocess.run(
        [
            CHROMIUM,
            *flags,
            "--window-size=1300,1000",
            f"--user-data-dir={profile}",
            "--dump-dom",
            f"{base}_overflow_probe.html?page={page}.html",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    text = BeautifulSoup(result.stdout, "html.parser").select_one("#result").get_text()
    assert text != "pending", f"{page}: the overflow probe did not run"
    return json.loads(text)


def test_no_page_needs_horizontal_scrolling(site, tmp_path_factory):
    profile = tmp_path_factory.mktemp("chromium-overflow")
    problems = {
        page: found
        for page in chapters()
        if (found := overflowing(site, page, profile))
    }
    assert not problems, (
        "elements wider than the content column at 1280 px:\n"
        + "\n".join(
            f"{page}: {item}" for page, found in problems.items() for item in found
        )
    )
