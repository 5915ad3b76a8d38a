"""Read the built site in a browser, as a reader would: Playwright on Debian's Chromium.

`_docs/` is served on 127.0.0.1. Run from the repository root after `nbdev_docs`:
    python .ci/site_browser.py [--shots DIR] [--only FOLDER/PAGE.html ...]
The pages are those nbs/sidebar.yml lists, each in its folder (`chapter/labs.html`,
`layer/core.html`; new pages are covered without editing this file). At 1280 x 900,
every request and console message recorded (in DIR/requests.txt):
  offline    no request leaves 127.0.0.1: each one to another host fails the check
             (it is also blocked, and Chromium resolves no other host name)
  load       every page loads with no console error, no uncaught exception, no failed
             request, no response of 400 or more, and names a favicon that loads
  math       no raw TeX (`\\(`, `\\[`, `$$`) in a page's text: formulas are typeset
  height     the page's height is the same 0.3 s and 1.5 s after load
  width      the document is no wider than the window (the whole document, naming what
             sticks out); no image, figure, table, code block or frame reaches past the
             text column, unless it sits in a box that scrolls sideways on purpose or in
             one of Quarto's wider columns (`.column-page-right`, ...), which must fit
             the window; no code block or table scrolls sideways, and no line of a code
             block wraps (lines of 88 characters fit the column at 1280 px); a printed
             output wider than the column scrolls in its own block (counted, allowed)
  outputs    no line of a printed output (a `pre` in a cell's output) wraps: each line
             of its text takes one line box, so a printed table keeps its columns
  fonts      printed outputs are in the code's size (12.3 px), and so is the code
  paths      no machine path (/tmp/, /root/, /home/, /work/, /Users/) in a page's text
  links      no link points at the published site (a local build links to its own
             pages), no source link lacks its line (`#LNone`), no "Other Formats" list
  folds      on the chapter's pages (notebooks 01-09 in any folder, with their letter
             pages 07a, 08a-08g) the code they build is shown without a fold;
             elsewhere an "Exported source" fold starts closed
  navbar     every section and API entry of a page, opened by a link within the page,
             shows its heading below the fixed navbar; so does each page's first API
             entry (else a section) opened as a new page, and
             `layer/core.html#attention` and `layer/cache.html#kvcache`: in the upper
             half of the first screen, or anywhere on it when the page ends first
  api        every API entry (a heading causal_mha.sitedoc.SiteDoc marks with
             `span.doc-entry`) shows a signature, a class as `class`; its arguments,
             returns and raises are lists (after a paragraph that is the label alone),
             never a paragraph starting `Args:`, ...
  anchors    every link to a page of the site with a `#fragment` lands on an element
             with that id (links between folders, `../layer/core.html#attention`)
  symbols    every symbol link (nbdev's link of a name in backticks, `<a><code>` to
             `PAGE.html#name`), followed as the browser resolves it, lands on an
             element with that id on its page, and that element is about the name: its
             API entry, an anchor above its code (a chapter page), or an anchor in the
             paragraph that names it
  pagenav    every page has Quarto's previous/next links at its foot, to the pages
             before and after it in nbs/sidebar.yml (none before home, none after the
             last page)
  sidebar    the sidebar lists every page of nbs/sidebar.yml; home first, then 4.1; the
             pages titled 4.1-4.9 in order; on the home page it needs no scroll
  labels     every sidebar label that links a page is that page's title (its h1)
  walk       following "next" from the home page walks the chapter in the learner's
             order: 4.1, 4.2, ..., 4.7, 4.7a, 4.8, 4.8's inside pages (08a-08g), 4.9,
             Labs, then leaves it; each numbered page's title carries its number
  search     the search box finds `KVCache` and `swap_attention`, and its first result
             opens their API entry with its heading on screen below the navbar
  chapter    the pages of 4.1, 4.7 and 4.8 show the code they build (`def`/`class`
             lines, not a bare signature) and the chapter's figures they print
  labs       every embedded lab works in its page: an input changed in the frame gives
             the Python twin's numbers, and the frame settles at the lab's own height
  labs-page  the Labs page opens with a live lab (its top within the first screen)
  bench      the Benchmarks page's plots are all loaded, shown at no less than 70% of
             their drawn width (the image's width attribute, in CSS px; else its
             pixels), with twice that many pixels or more (sharp on a dense screen)
Full-page screenshots (JPEG, the first 16,000 px of a page) go to --shots, else to a new
temporary folder (printed). Exits 1 when any check fails.
"""

import argparse, functools, html, http.server, json, math, re, sys, tempfile, threading, time
from pathlib import Path
from urllib.parse import urljoin, urlparse, unquote

sys.path.insert(0, str(Path(__file__).resolve().parent))
from site_check import (
    NBS,
    ROOT,
    chapter_key,
    is_chapter,
    page_name,
    sidebar_listed as sidebar_notebooks,
)  # one reader for both checks

sys.path.insert(0, str(NBS))
from _post_render import (
    page_entries,
)  # the API entries of a built page, as search has them

DOCS = ROOT / "_docs"
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]  # no other host
WIDTH, HEIGHT = 1280, 900
SITE_URL = "https://causal-mha.github.io/causal_mha/"  # settings.ini doc_host + doc_baseurl: nbdev's links use it
SHOT_MAX_HEIGHT = (
    16_000  # px of a full-page screenshot kept (the longest pages are longer)
)
SECTION_RE = re.compile(r"^(\d+)\.(\d+)\b")  # "4.7 Batches and heads" -> (4, 7)
CHAPTER_FIGURES = {  # section: (code lines the page shows, printed figures)
    "4.1": (["def attention("], ["0.1554, 0.4223, 0.4223", "0.5777, 0.8446"]),
    "4.7": (
        ["class MultiHeadAttention(", "class MultiHeadAttentionWrapper("],
        ["[[0, 0, 2], [0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 2]]"],
    ),
    "4.8": (["class Attention("], ["2.78e-16", "1.33e-15"]),
}
MIN_PLOT_SCALE = 0.70
MIN_PLOT_DENSITY = 2.0  # a plot's pixels per CSS px of its drawn width
HASH_PAGES = ("layer/core.html#attention", "layer/cache.html#kvcache")  # new pages
CHAPTER_NB = re.compile(r"^0[1-9][a-z]?_")  # the chapter's notebooks, as site_check's
CODE_PX = 12.3  # the code's font size (styles.css); printed outputs use it too
# a machine's folder in a page's text (not inside a word or a URL's path)
MACHINE_PATH_RE = r"(?<![\w.-])/(?:tmp|root|home|work|Users)/"
SECTION_NUMBER_RE = re.compile(
    r"^4\.\d+[a-z]?(?=\s)"
)  # "4.7a The text pipeline" -> "4.7a"


def serve(folder):
    "A quiet static server for `folder` on 127.0.0.1, in a thread; returns (base url, server)."
    handler = functools.partial(
        type(
            "Quiet",
            (http.server.SimpleHTTPRequestHandler,),
            {"log_message": lambda *a: None},
        ),
        directory=str(folder),
    )
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    srv.handle_error = lambda request, address: None  # a page closed mid-download
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{srv.server_address[1]}/", srv


def ids_of(html):
    return set(re.findall(r'\bid="([^"]+)"', html)) | set(
        re.findall(r"\bid='([^']+)'", html)
    )


# What one page looks like in the browser, measured in one evaluate call.
MEASURE_JS = r"""({site, codePx, pathRe}) => {
  const main = document.querySelector('main#quarto-document-content') || document.querySelector('main');
  const col = main.getBoundingClientRect();
  const scrolls = el => { for (let a = el.parentElement; a && a !== main; a = a.parentElement) {
      const o = getComputedStyle(a).overflowX; if (o === 'auto' || o === 'scroll') return a; } return null; };
  const name = el => el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\s+/).join('.') : '')
                    + (el.getAttribute('src') ? '[' + el.getAttribute('src').split('/').pop() + ']' : '');
  const wide = [], sideways = [], OUTPUT = 'div.cell-output';
  for (const el of main.querySelectorAll('img, figure, table, pre, div.sourceCode, iframe, svg, .cell-output-display')) {
    if (el.closest('svg') && el.tagName.toLowerCase() !== 'svg') continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    const box = scrolls(el);
    const own = getComputedStyle(el).overflowX;
    const purpose = box || (el.tagName === 'TABLE' && (own === 'auto' || own === 'scroll'));
    const outset = el.closest('[class*="column-"]');        // Quarto's column-page, column-screen, ...: wider on purpose
    if (outset && (r.right > document.documentElement.clientWidth + 1 || r.left < -1))
      wide.push(name(el) + ' runs past the window in its ' + outset.className);
    else if (!outset && (r.right > col.right + 1 || r.left < col.left - 1) && !purpose)
      wide.push(name(el) + ' ' + Math.round(r.width) + ' px from ' + Math.round(r.left - col.left));
    if (purpose && box && box.getBoundingClientRect().right > col.right + 1)
      wide.push('scrolling box of ' + name(el) + ' is itself wider than the column');
    if (el.tagName === 'TABLE' && !box && el.scrollWidth > el.clientWidth + 1)
      sideways.push(name(el) + ': a table of ' + el.scrollWidth + ' px in ' + el.clientWidth + ' (its last columns hidden)');
    if (el.tagName === 'PRE' && !el.closest(OUTPUT) && el.scrollWidth > el.clientWidth + 1)
      sideways.push(name(el) + ': ' + el.scrollWidth + ' px of code in ' + el.clientWidth + ' (' + el.textContent.split('\n').find(l => l.length > 60)?.slice(0, 60) + ')');
  }
  // a line of code that takes more than one line of the block: the column wraps it
  const wrapped = [];
  for (const code of main.querySelectorAll('div.sourceCode pre code')) {
    const lh = parseFloat(getComputedStyle(code).lineHeight);
    for (const ln of code.querySelectorAll(':scope > span'))
      if (lh && ln.getBoundingClientRect().height > 1.5 * lh)
        wrapped.push(ln.textContent.length + ' characters: ' + ln.textContent.trim().slice(0, 60));
  }
  // printed outputs: a line of text that takes more than one line box wraps; font sizes
  const outWrapped = [], fonts = [], outScroll = [];
  const px = el => parseFloat(getComputedStyle(el).fontSize);
  const off = el => Math.abs(px(el) - codePx) > 0.05;
  for (const pre of main.querySelectorAll(OUTPUT + ' pre')) {
    if (!pre.getClientRects().length) continue;                 // not shown (a closed fold)
    const inner = pre.querySelector('code') || pre;
    for (const el of new Set([pre, inner]))
      if (off(el)) fonts.push('output ' + el.tagName.toLowerCase() + ' at ' + px(el) + ' px: '
                              + pre.textContent.trim().slice(0, 50));
    const wider = [pre, inner].find(el => el.scrollWidth > el.clientWidth + 1);  // the box that scrolls
    if (wider) outScroll.push(wider.scrollWidth);
    const texts = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT), range = document.createRange();
    let hit = null;
    for (let n; !hit && (n = texts.nextNode()); ) {
      let at = 0;
      for (const line of n.textContent.split('\n')) {
        if (line.trim()) {
          range.setStart(n, at); range.setEnd(n, at + line.length);
          const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
          if (tops.size > 1) { hit = tops.size + ' line boxes: ' + line.trim().slice(0, 60); break; }
        }
        at += line.length + 1;
      }
    }
    if (hit) outWrapped.push(hit);
  }
  for (const code of main.querySelectorAll('div.sourceCode pre code'))
    if (code.getClientRects().length && !code.closest(OUTPUT) && off(code))
      fonts.push('code at ' + px(code) + ' px: ' + code.textContent.trim().slice(0, 50));
  // a machine's folder anywhere in the page's text (folds and code included)
  const machine = [], pathAt = new RegExp(pathRe);
  const words = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {acceptNode: n =>
    n.parentElement.closest('script, style, noscript') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
  for (let n; (n = words.nextNode()); ) {
    const m = pathAt.exec(n.textContent);
    if (m) machine.push(n.textContent.slice(Math.max(0, m.index - 40), m.index + 60).replace(/\s+/g, ' ').trim());
  }
  // symbol links: nbdev's link of a name in backticks, <a href="PAGE.html#name"><code>name</code></a>
  const symbols = [...main.querySelectorAll('a[href]')].filter(a => {
    const c = a.firstElementChild;
    return a.children.length === 1 && c.tagName === 'CODE' && a.textContent.trim() === c.textContent.trim()
           && /\.html#/.test(a.getAttribute('href')) && a.href.startsWith(location.origin);
  }).map(a => [a.href, a.textContent.trim()]);
  // Quarto's previous / next links at the foot of the page, as the browser resolves them
  const pageNav = document.querySelector('nav.page-navigation');
  const navLink = sel => { const a = document.querySelector(sel); return a ? a.href : null; };
  const entries = [...main.querySelectorAll('span.doc-entry')].map(m => m.closest('section')).filter(Boolean).map(s => {
    const h = s.querySelector('h1,h2,h3,h4,h5,h6');
    const code = s.querySelector('div.sourceCode pre, pre');
    const loose = [...s.querySelectorAll(':scope > p')].map(p => p.textContent.trim())
                   .filter(t => /^(Args|Arguments|Parameters|Returns|Raises|Attributes|Yields):/.test(t));
    const labels = [...s.querySelectorAll(':scope > p > strong')].filter(b =>
      b.parentElement.textContent.trim() === b.textContent.trim());   // a paragraph that is the label alone
    const lists = labels.map(b => b.textContent.trim())
                   .filter(t => ['Arguments', 'Returns', 'Raises', 'Attributes', 'Yields'].includes(t))
                   .map(t => [t, (() => { const p = labels.find(b => b.textContent.trim() === t).parentElement;
                                           const n = p.nextElementSibling; return n ? n.tagName : null; })()]);
    return {id: s.id, name: h ? h.textContent.trim() : '', sig: code ? code.textContent.trim().split('\n')[0] : null,
            loose, lists};
  });
  const links = [...main.querySelectorAll('a[href]')].map(a => a.getAttribute('href'));
  const code = [...main.querySelectorAll('div.sourceCode pre, pre.sourceCode')].map(p => p.textContent);
  const outputs = [...main.querySelectorAll('.cell-output pre, .cell-output-stdout pre, .cell-output-display pre')].map(p => p.textContent);
  const imgs = [...main.querySelectorAll('img')].map(i => ({src: i.getAttribute('src'), nw: +i.getAttribute('width') || i.naturalWidth,
                                                           w: i.getBoundingClientRect().width, done: i.complete && i.naturalWidth > 0}));
  imgs.forEach((im, k) => { im.px = main.querySelectorAll('img')[k].naturalWidth; });
  const labs = [...main.querySelectorAll('iframe.cmha-lab')].map(f => ({id: f.id, top: f.getBoundingClientRect().top + window.scrollY}));
  const h2 = main.querySelector('h2');
  // the whole document against the window: what sticks out past its edge (innermost)
  const root = document.documentElement, viewW = root.clientWidth, docWide = [];
  const docW = Math.max(root.scrollWidth, document.body.scrollWidth);
  if (docW > viewW + 1) {
    const out = [...document.body.querySelectorAll('*')].filter(el => {
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.right > viewW + 1; });
    const inner = out.filter(el => !out.some(o => o !== el && el.contains(o)));
    docWide.push(`the document is ${docW} px wide in a ${viewW} px window`
                 + (inner.length ? ', past its edge:' : ''));
    for (const el of inner.slice(0, 3))
      docWide.push(`  ${name(el)} to ${Math.round(el.getBoundingClientRect().right)} px`
                   + ` (${(el.textContent || '').trim().slice(0, 60)})`);
  }
  // raw TeX left in the text (outside code): a formula that was not typeset
  const skip = 'pre, code, script, style, math, .sourceCode', tex = [];
  const F = NodeFilter, walker = document.createTreeWalker(main, F.SHOW_TEXT,
    {acceptNode: n => n.parentElement.closest(skip) ? F.FILTER_REJECT : F.FILTER_ACCEPT}
  );
  for (let n; (n = walker.nextNode()); )
    if (/\\\(|\\\)|\\\[|\\\]|\$\$/.test(n.textContent))
      tex.push(n.textContent.trim().slice(0, 80));
  const anchors = [...document.querySelectorAll('a[href]')];
  const hrefs = anchors.map(a => a.getAttribute('href'));
  const icon = document.querySelector('link[rel~="icon"]');
  const exported = [...main.querySelectorAll('details.code-fold')].filter(
    d => (d.querySelector('summary') || {}).textContent.trim() === 'Exported source');
  const home = site.replace(/\/$/, '');
  return {title: (document.querySelector('h1.title') || {}).textContent || document.title, wide, sideways, wrapped, entries, links,
          code, outputs, imgs, labs, colWidth: col.width, firstH2: h2 ? h2.getBoundingClientRect().top + window.scrollY : null,
          docWide, tex, math: main.querySelectorAll('math').length,
          published: hrefs.filter(h => h === home || h.startsWith(site)),
          deadSource: hrefs.filter(h => /github\.com\/.*#L(?!\d+$)/.test(h)),
          otherFormats: document.querySelectorAll('.quarto-alternate-formats').length,
          folds: exported.length, openFolds: exported.filter(d => d.open).length,
          outWrapped, outScroll, fonts, machine, symbols, pageNav: !!pageNav,
          prev: navLink('nav.page-navigation .nav-page-previous a'),
          next: navLink('nav.page-navigation .nav-page-next a'),
          icon: icon ? icon.href : null,
          sections: [...main.querySelectorAll('section[id]')].map(s => s.id)};
}"""

# Every section of a page opened by its #anchor from within the page, as a click on a
# link to it does, one after the other (scrolling without animation): the top of its
# heading against the fixed navbar's height (where the navbar sits when shown).
NAVBAR_JS = r"""async (ids) => {
  const header = document.querySelector('#quarto-header, .fixed-top');
  const navH = header ? header.getBoundingClientRect().height : 0;
  const heads = 'h1,h2,h3,h4,h5,h6', under = [];
  document.documentElement.style.scrollBehavior = 'auto';
  for (const id of ids) {
    const el = document.getElementById(id);
    if (!el) continue;
    const a = document.createElement('a');
    a.href = '#' + encodeURIComponent(id);
    document.body.appendChild(a); a.click(); a.remove();
    await new Promise(r => setTimeout(r, 30));       // the page's hashchange handlers
    const h = el.matches(heads) ? el : (el.querySelector(heads) || el);
    const top = h.getBoundingClientRect().top;
    if (top < navH - 1) under.push(id + ' at ' + Math.round(top) + ' px');
  }
  history.replaceState(null, '', location.pathname);
  window.scrollTo(0, 0);
  document.documentElement.style.scrollBehavior = '';
  return {navH, under};
}"""

# The heading of the element a #fragment names: its top, bottom and the navbar's height.
TARGET_JS = r"""(frag) => {
  const header = document.querySelector('#quarto-header, .fixed-top');
  const el = document.getElementById(frag), heads = 'h1,h2,h3,h4,h5,h6';
  if (!el) return null;
  const h = el.matches(heads) ? el : (el.querySelector(heads) || el);
  const r = h.getBoundingClientRect();
  const navH = header ? header.getBoundingClientRect().height : 0;
  const end = window.scrollY >= document.documentElement.scrollHeight - window.innerHeight - 1;
  return {top: r.top, bottom: r.bottom, navH, end};
}"""


class Findings:
    "What the checks found: {check: [problem, ...]}, an empty list for a check that ran and passed."

    def __init__(self):
        self.results = {}

    def fail(self, check, msg):
        self.results.setdefault(check, []).append(msg)

    def ok(self, check):
        self.results.setdefault(check, [])

    def each(self, check, problems):
        "Every problem a failure of `check`; the check counted as run either way."
        for msg in problems:
            self.fail(check, msg)
        self.ok(check)


class Site(Findings):
    "One browser on the served site: what it loads recorded, other hosts blocked."

    def __init__(self, pw, base, shots):
        super().__init__()
        self.base, self.shots = base, shots
        self.log = []  # a line per request and console message
        self.browser = pw.chromium.launch(
            executable_path=CHROMIUM, args=ARGS, headless=True
        )
        self.ctx = self.browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
        self.ctx.set_default_timeout(15_000)
        self.ctx.route("**/*", self._route)

    def local(self, url):
        return url.startswith(self.base) or url.startswith(("data:", "about:", "blob:"))

    def _route(self, route):
        if self.local(route.request.url):
            route.continue_()
        else:
            route.abort("internetdisconnected")

    def open(self, url):
        "A page whose requests, console messages, exceptions and failures are recorded."
        pg = self.ctx.new_page()
        pg.errors, pg.bad, pg.outside, where = [], [], [], url[len(self.base) :]

        def note(line):
            self.log.append(f"{where}: {line}")

        def request(r):
            note(f"request {r.resource_type} {r.url[:200]}")
            if not self.local(r.url):
                pg.outside.append(r.url)

        def console(m):
            src = (m.location or {}).get("url") or ""
            note(f"console {m.type}: {m.text[:300]}" + (f" ({src})" if src else ""))
            if m.type != "error":
                return
            where_from = f" ({src.removeprefix(self.base) or src})" if src else ""
            pg.errors.append(m.text[:200] + where_from)

        def failed(r):
            note(f"FAILED {r.url[:200]} ({r.failure})")
            if self.local(r.url):
                pg.bad.append(f"{r.url} ({r.failure})")

        def response(r):
            if r.status < 400:
                return
            note(f"{r.status} {r.url[:200]}")
            pg.bad.append(f"{r.url} -> {r.status}")

        pg.on("request", request)
        pg.on("console", console)
        pg.on("pageerror", lambda e: pg.errors.append(f"uncaught: {str(e)[:200]}"))
        pg.on("requestfailed", failed)
        pg.on("response", response)
        pg.goto(url, wait_until="load")
        return pg

    def loaded(self, name, pg):
        "The offline and load checks of one page, from what `open` recorded."
        for u in sorted(set(pg.outside)):
            self.fail("offline", f"{name}: a request leaves 127.0.0.1: {u[:160]}")
        for e in pg.errors:
            self.fail("load", f"{name}: console: {e}")
        for b in pg.bad:
            self.fail("load", f"{name}: failed request: {b}")
        self.ok("offline")
        self.ok("load")


def read_pages(base, names, shots, site):
    """One browser reads `names` in turn: the per-page checks. (failures, measures, log).
    `site`: what they need of the whole site: `ids` and `entries` of each page (by its
    path), the `chapter`'s pages, the sidebar's `order`."""
    from playwright.sync_api import sync_playwright

    seen = {}
    with sync_playwright() as pw:
        s = Site(pw, base, shots)
        for name in names:
            t = time.time()
            pg = s.open(base + name)
            pg.wait_for_timeout(300)
            h1 = pg.evaluate("document.documentElement.scrollHeight")
            pg.wait_for_timeout(1200)
            h2 = pg.evaluate("document.documentElement.scrollHeight")
            m = seen[name] = pg.evaluate(
                MEASURE_JS,
                {"site": SITE_URL, "codePx": CODE_PX, "pathRe": MACHINE_PATH_RE},
            )
            fetch = "u => fetch(u).then(r => r.status, String)"
            icon = m["icon"] and pg.evaluate(fetch, m["icon"])
            if icon != 200:
                s.fail("load", f"{name}: favicon {m['icon']}: {icon}")
            if abs(h2 - h1) > 2:
                s.fail("height", f"{name}: {h1} px 0.3 s after load, {h2} px later")
            s.ok("height")
            for w in m["docWide"]:
                s.fail("width", f"{name}: {w}")
            column = round(m["colWidth"])
            wide = [f"{name}: {w} (column {column} px)" for w in m["wide"]]
            wide += [f"{name}: scrolls sideways: {w}" for w in m["sideways"]]
            wide += [f"{name}: a code line wraps: {w}" for w in m["wrapped"]]
            s.each("width", wide)
            s.each("math", [f"{name}: raw TeX in the text: {x!r}" for x in m["tex"]])
            check_outputs(s, name, m)
            check_links(s, name, m, site["chapter"])
            check_api(s, name, m)
            check_anchors(s, base, name, m, site["ids"])
            check_symbols(s, base, name, m, site)
            check_pagenav(s, base, name, m, site["order"])
            check_labs(s, pg, name, m)
            clip_h = min(
                pg.evaluate("document.documentElement.scrollHeight"), SHOT_MAX_HEIGHT
            )
            shot = Path(shots) / name.replace(".html", ".jpg")  # in the page's folder
            shot.parent.mkdir(parents=True, exist_ok=True)
            pg.screenshot(
                path=str(shot),
                full_page=True,
                type="jpeg",
                quality=50,
                clip={"x": 0, "y": 0, "width": WIDTH, "height": clip_h},
            )
            nav = pg.evaluate(NAVBAR_JS, m["sections"])
            for u in nav["under"]:
                s.fail(
                    "navbar",
                    f"{name}#{u} (opened within the page), under the "
                    f"{nav['navH']:.0f} px navbar",
                )
            s.ok("navbar")
            s.loaded(name, pg)
            pg.close()
            secs = m["sections"]
            first = (
                m["entries"][0]["id"]
                if m["entries"]
                else secs[len(secs) // 2]
                if secs
                else None
            )
            if first:
                check_fresh(s, base, f"{name}#{first}")
            print(
                f"  {name:40s} {h2:6d} px  {len(m['entries']):3d} API entries  "
                f"{len(secs):3d} sections  {m['math']:3d} formulas  "
                f"{len(m['labs'])} labs  {time.time() - t:4.1f} s",
                flush=True,
            )
        s.browser.close()
    return s.results, seen, s.log


def read_site(base, nbs, shots, ids, search=True):
    """The checks that need the whole site: sidebar, search, anchors opened as new pages,
    the walk through the chapter. (failures, log, the sidebar's [(page, label)])."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        s = Site(pw, base, shots)
        labels = check_sidebar(s, base, nbs)
        if search:
            check_search(s, base, ids)
            check_hash_pages(s, base)
            check_walk(s, base, nbs)
        s.browser.close()
    return s.results, s.log, labels


def site_facts(nbs, built, ids):
    """What the per-page checks need of the whole site: each page's `ids` and API
    `entries` (by its path), the `chapter`'s pages, the sidebar's `order`."""
    entries = {
        k: {e[0] for e in page_entries(p.read_text(encoding="utf-8"))}
        for k, p in built.items()
    }
    return {
        "ids": ids,
        "entries": entries,
        "chapter": {page_name(nb) for nb in nbs if CHAPTER_NB.match(Path(nb).name)},
        "order": [page_name(nb) for nb in nbs],  # Quarto's previous / next follow it
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--shots", help="folder for the screenshots (default: a new temporary folder)"
    )
    ap.add_argument(
        "--only", nargs="*", help="check only these pages (e.g. chapter/labs.html)"
    )
    ap.add_argument(
        "--workers", type=int, default=2, help="browsers reading pages side by side"
    )
    a = ap.parse_args()
    if not (DOCS / "index.html").exists():
        print(f"site check (browser): {DOCS} has no index.html: run nbdev_docs first")
        return 1
    if not Path(CHROMIUM).exists():
        print(
            f"site check (browser): needs Chromium at {CHROMIUM} (apt-get install chromium)"
        )
        return 1
    if a.workers < 1:
        print(f"--workers must be an int >= 1, got {a.workers}")
        return 1
    shots = (
        Path(a.shots) if a.shots else Path(tempfile.mkdtemp(prefix="cmha-site-shots-"))
    )
    shots.mkdir(parents=True, exist_ok=True)
    nbs = sidebar_notebooks()
    pages = [page_name(nb) for nb in nbs]
    if a.only:
        pages = [p for p in pages if p in a.only]
    built = {p.relative_to(DOCS).as_posix(): p for p in DOCS.rglob("*.html")}
    ids = {k: ids_of(p.read_text(encoding="utf-8")) for k, p in built.items()}
    unbuilt = [f"{p}: not built (in nbs/sidebar.yml)" for p in pages if p not in ids]
    results, seen = {"load": unbuilt}, {}
    pages = [p for p in pages if p in ids]
    base, srv = serve(DOCS)
    t0 = time.time()
    from concurrent.futures import ProcessPoolExecutor

    n = min(a.workers, len(pages)) or 1
    site = site_facts(nbs, built, ids)
    log = []
    with ProcessPoolExecutor(n + 1) as ex:  # `n` browsers read the pages; one the site
        jobs = [
            ex.submit(read_pages, base, pages[k::n], str(shots), site) for k in range(n)
        ]
        whole = ex.submit(read_site, base, nbs, str(shots), ids, not a.only)
        for j in jobs:
            r, m, lines = j.result()
            for k, v in r.items():
                results.setdefault(k, []).extend(v)
            seen.update(m)
            log += lines
        r, lines, labels = whole.result()
        for k, v in r.items():
            results.setdefault(k, []).extend(v)
        log += lines
    srv.shutdown()
    (shots / "requests.txt").write_text("\n".join(log) + "\n", encoding="utf-8")
    n_req = sum(" request " in l for l in log)
    n_con = sum(" console " in l for l in log)
    s = Findings()
    s.results = results
    if not a.only:
        check_chapter(s, seen)  # the whole-site checks need the whole site
    check_pages(s, seen, partial=bool(a.only))
    check_labels(s, labels, seen)
    scrolling = sum(len(m["outScroll"]) for m in seen.values())
    print(
        f"{len(seen)} pages read in {time.time() - t0:.0f} s; screenshots: {shots}; "
        f"{n_req} requests, {n_con} console messages in requests.txt; "
        f"{scrolling} printed outputs wider than the column scroll in their block"
    )
    failed = [k for k, v in results.items() if v]
    for k, v in results.items():
        print(f"{k:10s} {'ok' if not v else f'{len(v)} problem(s)'}")
        for msg in v[:60]:
            print("   ", msg)
        if len(v) > 60:
            print(f"    ... and {len(v) - 60} more")
    print(
        "site check (browser):",
        "passed" if not failed else "FAILED (" + ", ".join(failed) + ")",
    )
    return 1 if failed else 0


def check_links(s, name, m, chapter):
    "Links to the published site, source links without a line, format lists; folds."
    if m["published"]:
        s.fail(
            "links",
            f"{name}: {len(m['published'])} link(s) to the published site, "
            f"e.g. {m['published'][0]} (a local build links locally)",
        )
    for h in sorted(set(m["deadSource"])):
        s.fail("links", f"{name}: a source link without its line: {h}")
    if m["otherFormats"]:
        s.fail("links", f'{name}: an "Other Formats" list')
    s.ok("links")
    if name in chapter and m["folds"]:
        s.fail(
            "folds",
            f"{name}: a chapter page with {m['folds']} fold(s) of exported "
            f"source: the code it builds is shown without one",
        )
    elif name not in chapter and m["openFolds"]:
        s.fail("folds", f'{name}: {m["openFolds"]} "Exported source" fold(s) open')
    s.ok("folds")


def heading_at(pg, frag):
    "Where the heading of `#frag` sits once the page settles (or None)."
    pg.wait_for_timeout(800)
    return pg.evaluate(TARGET_JS, frag)


def check_fresh(s, base, target, say=False):
    """`target` (`page.html#id`) opened as a new page, as a link from another page or a
    search result opens it: `#id`'s heading below the navbar, in the upper half of the
    first screen (on it, where the page ends too soon for the heading to rise higher)."""
    pg = s.open(base + target)
    at = heading_at(pg, target.split("#", 1)[1])
    # the upper half of the screen; where the page ends before the heading can rise that
    # far (a short last section), anywhere on the first screen
    low = HEIGHT - (at["bottom"] - at["top"]) if at and at["end"] else HEIGHT / 2
    if at is None:
        s.fail("navbar", f"{target}: no element with that id")
    elif not at["navH"] - 1 <= at["top"] < low:
        where = (
            f"under the {at['navH']:.0f} px navbar"
            if at["top"] < at["navH"]
            else "below the first screen"
        )
        s.fail(
            "navbar",
            f"{target} opened as a new page: its heading at "
            f"{at['top']:.0f} px, {where}",
        )
    elif say:
        print(f"  {target}: heading at {at['top']:.0f} px")
    s.loaded(target, pg)
    pg.close()
    s.ok("navbar")


def check_hash_pages(s, base):
    for target in HASH_PAGES:
        check_fresh(s, base, target, say=True)


def check_api(s, name, m):
    import inspect

    for e in m["entries"]:
        where = f"{name}#{e['id']} ({e['name']})"
        if not e["sig"]:
            s.fail("api", f"{where}: no signature")
        for t in e["loose"]:
            s.fail("api", f"{where}: a section shown as a paragraph: {t[:80]!r}")
        for title, nxt in e["lists"]:
            if nxt not in ("UL", "OL", "TABLE", "DL"):
                s.fail("api", f'{where}: "{title}" is not followed by a list')
        obj = resolve(e["name"])
        if obj is not None and e["sig"]:
            want = "class" if inspect.isclass(obj) else "def"
            if not e["sig"].startswith(want) and not e["sig"].startswith("async def"):
                s.fail(
                    "api",
                    f"{where}: a {'class' if want == 'class' else 'function'} shown as {e['sig'].split()[0]!r}",
                )
    s.ok("api")


@functools.lru_cache(None)
def resolve(qualname):
    "The object a heading names (`KVCache.update`), looked up in the package's modules; None if not found."
    import importlib, pkgutil
    import causal_mha

    mods = (
        [causal_mha]
        + [  # every module, in the sub-packages too (causal_mha.layer.core)
            importlib.import_module(m.name)
            for m in pkgutil.walk_packages(causal_mha.__path__, "causal_mha.")
            if not any(part.startswith("_") for part in m.name.split(".")[1:])
        ]
    )
    for mod in mods:
        obj = mod
        for part in qualname.split("."):
            obj = getattr(obj, part, None)
            if obj is None:
                break
        if obj is not None:
            return obj
    return None


def check_anchors(s, base, name, m, ids):
    "Links to the site with a #fragment: the page exists and has that id. One problem per missing target and page."
    seen = {}
    for href in m["links"]:
        if href.startswith(base):  # Quarto's script writes a link within the page so
            href = SITE_URL + href[len(base) :]
        url = (
            href
            if href.startswith(SITE_URL)
            else urljoin(SITE_URL + name, href)
            if not re.match(r"^[a-z]+:", href)
            else None
        )
        if not url or not url.startswith(SITE_URL) or "#" not in url:
            continue
        page, frag = url[len(SITE_URL) :].split("#", 1)
        page, frag = page.split("?")[0] or name, unquote(frag)
        if page not in ids or (frag and frag not in ids[page]):
            seen[(page, frag)] = seen.get((page, frag), 0) + 1
    for (page, frag), n in seen.items():
        what = f"no page {page}" if page not in ids else f"{page} has no #{frag}"
        s.fail("anchors", f"{name}: {n} link(s) to {page}#{frag}: {what}")
    s.ok("anchors")


def site_path(url, base):
    "A page's path in the site, with its folder (`layer/core.html`), from its address."
    path = unquote(urlparse(url).path)[len(urlparse(base).path) :]
    return path + "index.html" if not path or path.endswith("/") else path


def check_outputs(s, name, m):
    "Printed outputs: no line wraps; outputs and code in the code's font size; no machine path."
    wraps = [f"{name}: a printed line wraps into {w}" for w in m["outWrapped"]]
    s.each("outputs", wraps)
    s.each("fonts", [f"{name}: {f} (want {CODE_PX} px)" for f in m["fonts"]])
    paths = [f"{name}: a machine path in the text: {x!r}" for x in m["machine"]]
    s.each("paths", paths)


@functools.lru_cache(None)
def defined_after(page, frag):
    """The names whose code (`def name`, `class name`) a built page shows after its
    element `#frag`: a chapter page shows the code it builds instead of an API entry,
    with the name's id above it."""
    text = (DOCS / page).read_text(encoding="utf-8")
    at = re.search(rf"""(?<![\w-])id=["']{re.escape(frag)}["']""", text)
    blocks = re.findall(r"<pre\b.*?</pre>", text[at.end() :], re.S) if at else []
    code = html.unescape(re.sub(r"<[^>]+>", "", "\n".join(blocks)))
    return frozenset(
        name.lower()
        for name in re.findall(r"^\s*(?:async\s+)?(?:def|class)\s+(\w+)", code, re.M)
    )


@functools.lru_cache(None)
def paragraph_at(page, frag):
    "The text of the paragraph that holds the element `#frag` of a built page ('' if none)."
    text = (DOCS / page).read_text(encoding="utf-8")
    at = re.search(rf"""(?<![\w-])id=["']{re.escape(frag)}["']""", text)
    start = text.rfind("<p>", 0, at.start()) if at else -1
    end = text.find("</p>", at.end()) if at else -1
    inside = start >= 0 and end >= 0 and "</p>" not in text[start : at.start()]
    return html.unescape(re.sub(r"<[^>]+>", "", text[start:end])) if inside else ""


def lands(page, frag, symbol, site):
    """Whether `#frag` on `page` is about `symbol`: its API entry, an anchor above the
    name's code (a chapter page), or an anchor in the paragraph that introduces it."""
    bare = symbol.removesuffix("()").rsplit(".", 1)[-1]
    return (
        frag in site["entries"][page]
        or frag in defined_after(page, frag)
        or bare in paragraph_at(page, frag)
    )


def check_symbols(s, base, name, m, site):
    """Symbol links as the browser resolves them: the page exists, has the id, and what
    the id marks is about the name (see `lands`). One problem per name and what is
    wrong, on each page."""
    seen = {}
    for href, symbol in m["symbols"]:
        page, frag = site_path(href, base), unquote(urlparse(href).fragment)
        if page not in site["ids"]:
            what = f"no page {page}"
        elif frag not in site["ids"][page]:
            what = f"{page} has no element with id {frag!r}"
        elif not lands(page, frag, symbol, site):
            what = f"#{frag} on {page} is not the name's API entry, code or paragraph"
        else:
            continue
        seen[(symbol, what)] = seen.get((symbol, what), 0) + 1
    for (symbol, what), n in seen.items():
        s.fail("symbols", f"{name}: {n} link(s) of `{symbol}`: {what}")
    s.ok("symbols")


def check_pagenav(s, base, name, m, order):
    "Previous and next at the foot of the page: the pages around it in the sidebar."
    if name not in order:
        return
    k = order.index(name)
    want = {
        "previous": order[k - 1] if k > 0 else None,
        "next": order[k + 1] if k + 1 < len(order) else None,
    }
    got = {
        "previous": m["prev"] and site_path(m["prev"], base),
        "next": m["next"] and site_path(m["next"], base),
    }
    if not m["pageNav"]:
        s.fail("pagenav", f"{name}: no previous/next links at the foot of the page")
    for side in ("previous", "next"):
        if got[side] != want[side]:
            s.fail("pagenav", f"{name}: {side} is {got[side]}, not {want[side]}")
    s.ok("pagenav")


LAST_SECTION = 9  # 4.9; the labs after it carry no number


def chapter_walk(nbs):
    """The chapter's pages in the learner's order: (page, its section number, whether its
    title must carry it). A section's own page must (4.7, 4.8); a letter page may
    (4.7a), and if it does the number is its own; the labs carry none."""
    entries = sorted((nb for nb in nbs if is_chapter(nb)), key=chapter_key)
    want = []
    for nb in entries:
        number, letter = chapter_key(nb)
        section = f"4.{number}{letter}" if number <= LAST_SECTION else None
        want.append((page_name(nb), section, section is not None and not letter))
    return want


def walk_next(s, base, steps):
    'From the home page, click "next" up to `steps` times: [(page, its title)].'
    pg = s.open(base + "index.html")
    walked = []
    for _ in range(steps):
        pg.wait_for_load_state("networkidle")  # the favicon too: a click would abort it
        link = pg.locator("nav.page-navigation .nav-page-next a")
        if not link.count():
            break
        link.first.click()
        pg.wait_for_load_state("load")
        title = pg.eval_on_selector("h1.title", "h => h.textContent.trim()")
        walked.append((site_path(pg.url, base), title))
    s.loaded("index.html (next, next, ...)", pg)
    pg.close()
    return walked


def section_of(title):
    "The section number a title starts with (`4.7a`), or None."
    shown = SECTION_NUMBER_RE.match(title or "")
    return shown[0] if shown else None


def numbers_walked(walked, want):
    "The pages walked whose title does not carry the section number it should."
    bad = []
    for (page, title), (_, section, required) in zip(walked, want):
        shown = section_of(title)
        if (required or shown) and shown != section:
            bad.append(f"{page}: titled {title!r}, not {section}")
    return bad


def check_walk(s, base, nbs):
    """From the home page, "next" again and again: the chapter in order, then out of it."""
    want = chapter_walk(nbs)
    walked = walk_next(s, base, len(want) + 1)
    pages, chapter = [p for p, _ in walked], [p for p, _, _ in want]
    if pages[: len(want)] != chapter:
        s.fail(
            "walk",
            f"next from the home page walks {pages[: len(want)]}, "
            f"not the chapter {chapter}",
        )
    if pages[len(want) :][:1] and pages[len(want)] in chapter:
        s.fail("walk", f"after the chapter, next leads back to {pages[len(want)]}")
    for problem in numbers_walked(walked, want):
        s.fail("walk", problem)
    steps = [section_of(t) or p.rsplit("/", 1)[-1] for p, t in walked]
    print("  walk from home by next: " + " -> ".join(steps))
    s.ok("walk")


def check_labels(s, labels, seen):
    "Each sidebar label that links a page is the page's title (as the browser shows both)."

    def words(x):
        return " ".join((x or "").split())

    for page, label in labels:
        if page in seen and words(label) != words(seen[page]["title"]):
            s.fail(
                "labels",
                f"the sidebar's {label!r} links {page}, titled {seen[page]['title']!r}",
            )
    s.ok("labels")


def check_labs(s, pg, name, m):
    "Each embedded lab: change an input inside the frame, compare with the Python twin; the frame's height settles."
    from causal_mha.chapter.labs import attention_lab, dropout_lab, multihead_lab, fmt

    for k, lab in enumerate(m["labs"]):
        where = f"{name} lab {k + 1}"
        fr = pg.frame_locator(f"#{lab['id']}")
        try:
            kind = fr.locator("#lab").get_attribute("data-lab")

            def goto(step):
                "Press Next until the lab's step control reads `step`."
                for _ in range(5):
                    if fr.locator("#lab").get_attribute("data-step") == str(step):
                        break
                    fr.locator("[data-testid=next]").click()

            if kind == "attention":
                fr.locator("[data-testid=ex-twokey]").click()
                goto(5)
                got = fr.locator("[data-testid=output]").text_content()
                fr.locator("[data-testid=v-input]").fill(
                    "10\n30"
                )  # change V: the output follows
                tw = attention_lab(
                    "1 0", "1 0\n0 1", "10\n30", query=0, scale=True, causal=False
                )
                want = f"z0 = ({', '.join(fmt(x) for x in tw['output'])})"
                after = fr.locator("[data-testid=output]").text_content()
                if got != "z0 = (13.3024)" or after != want:
                    s.fail(
                        "labs", f"{where}: output {got!r} then {after!r}, twin {want!r}"
                    )
            elif kind == "dropout":
                fr.locator("[data-testid=mode-train]").check()
                fr.locator("[data-testid=weights]").fill("0.2 0.3 0.5")
                fr.locator("[data-testid=p]").fill("0.5")
                sums = []
                for mask in ("101", "010"):
                    fr.locator("[data-testid=mask]").fill(mask)
                    goto(5)
                    sums.append(fr.locator("[data-testid=sample-sum]").text_content())
                want = [
                    fmt(dropout_lab("0.2 0.3 0.5", 0.5, "train", b)["sample_sum"], 6)
                    for b in ("101", "010")
                ]
                if sums != want:
                    s.fail("labs", f"{where}: row sums {sums}, twin {want}")
            elif kind == "multihead":
                for f, x in (("B", 1), ("T", 3), ("D", 4), ("H", 2), ("element", 2)):
                    fr.locator(f"[data-testid={f}]").fill(str(x))
                fr.locator("[data-testid=wrong]").set_checked(True)
                goto(5)
                path = fr.locator("[data-testid=path]").text_content()
                want = " → ".join(
                    str(c) for c in multihead_lab("1", "3", "4", "2", "2", True)["path"]
                )
                if path != want:
                    s.fail("labs", f"{where}: path {path!r}, twin {want!r}")
            else:
                s.fail("labs", f"{where}: not a lab page ({kind!r})")
            pg.wait_for_timeout(600)
            h = [pg.eval_on_selector(f"#{lab['id']}", "f => f.offsetHeight")]
            pg.wait_for_timeout(600)
            h.append(pg.eval_on_selector(f"#{lab['id']}", "f => f.offsetHeight"))
            content, view = fr.locator("html").evaluate(
                "h => [h.getBoundingClientRect().height, window.innerHeight]"
            )
            if h[0] != h[1]:
                s.fail(
                    "labs",
                    f"{where}: the frame keeps changing height: {h[0]} then {h[1]} px",
                )
            if not 0 <= view - content < 3:
                s.fail(
                    "labs", f"{where}: frame shows {view} px of a {content:.0f} px lab"
                )
        except Exception as e:
            s.fail(
                "labs", f"{where}: {type(e).__name__}: {str(e).splitlines()[0][:160]}"
            )
    s.ok("labs")


def check_sidebar(s, base, nbs):
    pg = s.open(base + "index.html")
    links = pg.eval_on_selector_all(
        "#quarto-sidebar a.sidebar-link, #quarto-sidebar a.sidebar-item-text",
        'as => as.map(a => [a.getAttribute("href"), a.textContent.trim()])',
    )
    shown = pg.eval_on_selector_all(
        "#quarto-sidebar a.sidebar-link, #quarto-sidebar a.sidebar-item-text",
        "as => as.filter(a => a.getClientRects().length).length",
    )
    content, box = pg.eval_on_selector(
        "#quarto-sidebar", "e => [e.scrollHeight, e.clientHeight]"
    )
    s.loaded("index.html (sidebar)", pg)
    pg.close()
    if content > box + 1:
        s.fail(
            "sidebar",
            f"on the home page the sidebar needs a scroll of its own: "
            f"{content} px of entries in {box} px ({shown} links shown)",
        )

    def norm(h):
        return site_path(urljoin(base + "index.html", h), base)

    hrefs = [
        norm(h) for h, _ in links if h and urlparse(h).path.endswith((".html", "/"))
    ]  # Quarto links home as /
    titles = {norm(h): t for h, t in links if h}
    want = [page_name(nb) for nb in nbs]
    missing = [p for p in want if p not in hrefs]
    if missing:
        s.fail("sidebar", f"the sidebar lacks {missing}")
    if hrefs[:1] != ["index.html"]:
        s.fail("sidebar", f"the first entry is {hrefs[:1]}, not the home page")
    sections = [(h, SECTION_RE.match(titles.get(h, ""))) for h in hrefs]
    chapter = [(h, (int(x[1]), int(x[2]))) for h, x in sections if x]
    if (
        len(hrefs) > 1
        and not SECTION_RE.match(titles.get(hrefs[1], ""))
        or (chapter and chapter[0][1] != (4, 1))
    ):
        s.fail(
            "sidebar",
            f"the page after home is {hrefs[1:2]} ({titles.get(hrefs[1]) if len(hrefs) > 1 else None}), not 4.1",
        )
    nums = [n for _, n in chapter]
    if nums != sorted(nums):
        s.fail(
            "sidebar",
            f"the chapter pages are out of order: {[f'{a}.{b}' for a, b in nums]}",
        )
    order = " ".join(f"{a}.{b}" for a, b in nums)
    print(
        f"  sidebar: {len(hrefs)} pages, {shown} links shown on the home page "
        f"({content} px in {box} px); chapter: {order}"
    )
    s.ok("sidebar")
    return [
        (norm(h), label) for h, label in links if h
    ]  # a section's own label: no page


def check_search(s, base, ids):
    for query, anchor in (("KVCache", "kvcache"), ("swap_attention", "swap_attention")):
        pg = s.open(base + "index.html")
        try:
            pg.click("#quarto-search button, .aa-DetachedSearchButton, #quarto-search")
            box = pg.locator("input.aa-Input")
            box.fill(query)
            pg.wait_for_selector(".aa-Item", timeout=10_000)
            first = pg.locator(".aa-Item a").first
            href = first.get_attribute("href") or ""
            first.click()
            pg.wait_for_load_state("load")
            frag = urlparse(pg.url).fragment
            at = heading_at(pg, frag)
            page = site_path(pg.url, base)
            if frag != anchor or at is None:
                s.fail(
                    "search",
                    f'"{query}": the first result ({href}) opened '
                    f"{page}#{frag}, not the #{anchor} entry",
                )
            elif not at["navH"] - 1 <= at["top"] < HEIGHT / 2:  # under the navbar
                s.fail(
                    "search",
                    f'"{query}": the first result opened {page}#{frag}, '
                    f"its heading at {at['top']:.0f} px",
                )
            else:
                print(
                    f'  search "{query}": first result opens {page}#{frag}, '
                    f"heading at {at['top']:.0f} px"
                )
        except Exception as e:
            s.fail(
                "search",
                f'"{query}": {type(e).__name__}: {str(e).splitlines()[0][:160]}',
            )
        s.loaded(f'search "{query}"', pg)
        pg.close()
    s.ok("search")


def check_chapter(s, seen):
    for sec, (code, figures) in CHAPTER_FIGURES.items():
        pages = {
            n: m
            for n, m in seen.items()
            if re.match(rf"^{re.escape(sec)}\b", (m["title"] or "").strip())
        }
        if not pages:
            s.fail("chapter", f"no page titled {sec}")
            continue
        shown = "\n".join(c for m in pages.values() for c in m["code"])
        printed = "\n".join(o for m in pages.values() for o in m["outputs"])
        for c in code:
            if not re.search(rf"^\s*{re.escape(c)}", shown, re.M):
                s.fail("chapter", f"{sec} ({', '.join(pages)}): does not show `{c}...`")
        for f in figures:
            if f not in printed:
                s.fail("chapter", f"{sec} ({', '.join(pages)}): does not print {f}")
    s.ok("chapter")


def check_pages(s, seen, partial=False):
    labs = [n for n, m in seen.items() if (m["title"] or "").strip().startswith("Labs")]
    for n in labs:
        m = seen[n]
        if not m["labs"] or m["labs"][0]["top"] > HEIGHT:
            s.fail(
                "labs-page",
                f"{n}: the first live lab starts at {m['labs'][0]['top'] if m['labs'] else None} px, below the first screen",
            )
    if not labs and not partial:
        s.fail("labs-page", "no page titled Labs")
    s.ok("labs-page")
    bench = [
        n
        for n, m in seen.items()
        if (m["title"] or "").strip().startswith("Benchmarks")
    ]
    if not bench and not partial:
        s.fail("bench", "no page titled Benchmarks")
    for n in bench:
        plots = [i for i in seen[n]["imgs"] if "_files/figure" in (i["src"] or "")]
        if not plots:
            s.fail("bench", f"{n}: no plot")
        for i in plots:
            scale = i["w"] / i["nw"] if i["nw"] else 0
            if not i["done"] or not i["nw"]:
                s.fail("bench", f"{n}: {i['src']} did not load")  # nw: drawn width, px
            elif scale < MIN_PLOT_SCALE:
                s.fail(
                    "bench",
                    f"{n}: {i['src'].split('/')[-1]} drawn {i['nw']} px wide, shown at {i['w']:.0f} px ({scale:.0%})",
                )
            elif i["px"] < MIN_PLOT_DENSITY * i["nw"]:
                s.fail(
                    "bench",
                    f"{n}: {i['src'].split('/')[-1]} has {i['px']} px for "
                    f"{i['nw']} CSS px (want {MIN_PLOT_DENSITY:.0f}x)",
                )
    s.ok("bench")


if __name__ == "__main__":
    sys.exit(main())
