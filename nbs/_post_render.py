"""Quarto post-render step (nbs/_quarto.yml `post-render`): local links, folds, search.

1. Local links. nbdev writes a link to an API entry with the published site's address
(`https://causal-mha.github.io/causal_mha/layer/core.html#attention`, from
settings.ini's doc_host and doc_baseurl). Each such link becomes relative to the folder
of the page that holds it (`../layer/core.html#attention` from `chapter/qkv.html`): a
local build links to its own pages and works offline, and the published site links to
itself as before. nbdev also links a private name in backticks (`_Staged`) to the page
of its module, where no API entry is drawn for it: such a link, whose `#name` is on no
element of its page, is left as the plain code it was.

2. Folds. nbdev puts the source of an `#| exports` cell in an open "Exported source"
fold. On the chapter's pages (notebooks `01_` to `09_` in any folder, with their letter
pages such as `layer/08c_`) that code is what the page teaches: it is shown as a plain
code cell, without a fold. On every other page the reader comes for the API entry above
it, and the fold starts closed: the page opens on its prose and signatures, the source
one click away.

3. Quarto's search indexes a page by its `##` sections, so an entry drawn by `show_doc`
(a `###` heading that `causal_mha.sitedoc.SiteDoc` marks with a `doc-entry` span)
is found only as part of whatever section holds it, after the page's intro. This adds,
for each entry, an item whose section is the symbol's name and whose link opens the
entry: searching `KVCache` or `swap_attention` lists that entry first. The link carries
`?api=NAME` so the search box shows it as a result of its own rather than folded under
the page's first match.

4. Quarto adds require.js and jQuery from a CDN to every page made from a notebook with
an HTML output, for Jupyter widgets. No page here has one (the labs are self-contained
iframes), so the two scripts and the line that ties them together are removed: a page
then loads nothing from outside the site.

Quarto runs it from the project folder (`_proc/`, with the notebooks and nbdev.yml) with
QUARTO_PROJECT_OUTPUT_DIR set; `python3 nbs/_post_render.py _docs nbs` also works on a
built site. Standard library only.
"""

import html
import os
import posixpath
import json, re, sys
from html.parser import HTMLParser
from pathlib import Path


class _Entries(HTMLParser):
    """The API entries of one page: sections whose heading holds
    `<span class="doc-entry">`, with their text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        # open: [section id, its entry or None]
        self.entries, self.open, self.heading, self.skip = [], [], None, 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("script", "style", "button"):
            self.skip += 1
        elif tag == "section":
            self.open.append([a.get("id", ""), None])
        elif re.fullmatch(r"h[1-6]", tag):
            self.heading = ""
        elif (
            tag == "span"
            and "doc-entry" in (a.get("class") or "").split()
            and self.heading is not None
            and self.open
        ):
            self.open[-1][1] = {
                "id": self.open[-1][0],
                "name": self.heading,
                "text": [],
            }
            self.entries.append(self.open[-1][1])

    def handle_endtag(self, tag):
        if tag in ("script", "style", "button"):
            self.skip = max(0, self.skip - 1)
        elif tag == "section" and self.open:
            self.open.pop()
        elif re.fullmatch(r"h[1-6]", tag):
            self.heading = None

    def handle_data(self, data):
        if self.skip:
            return
        if self.heading is not None:
            self.heading += data
        else:
            for _, e in self.open:
                if e:
                    e["text"].append(data)


def page_entries(text):
    "[(id, name, text)] of the API entries in one built page."
    p = _Entries()
    p.feed(text)

    def words(e):
        return re.sub(r"\s+", " ", "".join(e["text"])).strip()

    return [(e["id"], e["name"].strip(), words(e)) for e in p.entries]


_WIDGET_SCRIPTS = re.compile(
    r'<script src="https://cdnjs\.cloudflare\.com/ajax/libs/'
    r'(?:require\.js|jquery)/[^"]*"[^>]*></script>\s*'
    r'|<script type="application/javascript">'
    r"define\(\'jquery\', \[\],function\(\) \{return window\.jQuery;\}\)"
    r"</script>\s*"
)


def drop_widget_scripts(text):
    "A page without Quarto's require.js / jQuery tags (only Jupyter widgets use them)."
    # a page that does use them keeps them
    if re.search(r"\brequire\(\[|jupyter-widgets", text):
        return text
    return _WIDGET_SCRIPTS.sub("", text)


CHAPTER_RE = re.compile(r"^0[1-9][a-z]?_")  # the chapter's notebooks, as site_check's


def page_of(nb):
    """nbdev's page for a notebook, in its folder: `layer/08_core.ipynb` ->
    `layer/core.html` (as site_check's)."""
    nb = Path(nb)
    name = re.sub(r"^\d+[a-zA-Z0-9]*_", "", nb.name.lower()).rsplit(".", 1)[0] + ".html"
    return (nb.parent / name).as_posix()


def site_url(proj):
    "The published address: nbdev.yml's `site-url` (from settings.ini), no final slash."
    yml = (proj / "nbdev.yml").read_text(encoding="utf-8")
    m = re.search(r'^\s*site-url:\s*["\']?([^"\'\s]+)', yml, re.M)
    return m[1].rstrip("/") if m else None


_ID = re.compile(r"""(?<![\w-])id=["']([^"']+)["']""")
_PRIVATE_LINK = re.compile(r'<a href="([^"#:]*)#(_[^"]*)"><code>(_[^<]*)</code></a>')


def unlink_private(text, here, ids):
    """A page whose links to private names (`_Staged`) that land on no element of
    their page are plain code. `here`: the page's folder; `ids`: {page: its ids}."""

    def plain(m):
        page = posixpath.normpath(posixpath.join(here, m[1])) if m[1] else None
        if page in ids and m[2] not in ids[page]:
            return f"<code>{m[3]}</code>"
        return m[0]  # a page this run did not build, or a name it has an element for

    return _PRIVATE_LINK.sub(plain, text)


def local_links(text, site, here="."):
    """A page whose links to the published site (`SITE/layer/core.html#x`) are
    relative to its folder `here` (relative to the site's root)."""
    if not site:
        return text

    def rel(m):
        rest = m[2].lstrip("/")  # 'layer/core.html#x', '' or '#x'
        page = rest if rest and not rest.startswith("#") else "index.html" + rest
        target, _, frag = page.partition("#")
        return m[1] + os.path.relpath(target, here) + ("#" + frag if frag else "") + '"'

    return re.sub(rf'(<a\b[^>]*?\bhref="){re.escape(site)}((?:[/#][^"]*)?)"', rel, text)


_FOLD = re.compile(
    r'<details open="" class="code-fold">\s*'
    r"<summary>Exported source</summary>\s*(.*?)</details>",
    re.S,
)


def folds(text, chapter):
    "A chapter page's exported source without its fold; another page's fold closed."
    if chapter:
        return _FOLD.sub(lambda m: m[1].rstrip() + "\n", text)

    def closed(m):
        return m[0].replace('<details open="" class=', "<details class=", 1)

    return _FOLD.sub(closed, text)


def ids_of(page):
    "The ids of the elements of a built page."
    return set(_ID.findall(page.read_text(encoding="utf-8")))


def api_items(name, text, base):
    """Search items for the API entries of the page `name` (`layer/core.html`) whose
    built text is `text`; `base`: the page's own item in Quarto's search.json."""
    items = []
    for anchor, symbol, body in page_entries(text):
        if not anchor or not symbol:
            continue
        href = f"{name}?api={anchor}#{anchor}"
        items.append(
            {
                "objectID": href,
                "href": href,
                "title": base.get("title"),
                "section": symbol,
                "text": html.escape(body[:2000], quote=False),
                "crumbs": base.get("crumbs"),
            }
        )
    return items


def main(out_dir, proj="."):
    out, proj, docs, added, stripped = Path(out_dir), Path(proj), None, 0, 0
    site = site_url(proj) if (proj / "nbdev.yml").exists() else None
    chapter = {
        page_of(nb.relative_to(proj))
        for nb in proj.rglob("*.ipynb")
        if CHAPTER_RE.match(nb.name) and "_proc" not in nb.parts
    }
    relinked = folded = 0
    index = out / "search.json"
    if index.exists():
        docs = [
            d
            for d in json.loads(index.read_text(encoding="utf-8"))
            if "?api=" not in d.get("href", "")
        ]
    by_page = {d["href"]: d for d in docs or [] if "#" not in d["href"]}
    pages = {
        page.relative_to(out).as_posix(): page for page in sorted(out.rglob("*.html"))
    }
    ids = {name: ids_of(page) for name, page in pages.items()}
    unlinked = 0
    for name, page in pages.items():  # name: 'layer/core.html'
        text = page.read_text(encoding="utf-8")
        here = posixpath.dirname(name) or "."
        new = drop_widget_scripts(text)
        stripped += new != text
        new, was = local_links(new, site, here), new
        relinked += new != was
        new, was = unlink_private(new, here, ids), new
        unlinked += new != was
        new, was = folds(new, name in chapter), new
        folded += new != was
        if new != text:
            page.write_text(new, encoding="utf-8")
        if docs is not None:
            items = api_items(name, text, by_page.get(name, {"title": page.stem}))
            docs += items
            added += len(items)
    if docs is not None:
        index.write_text(json.dumps(docs, indent=2), encoding="utf-8")
    print(
        f"_post_render: links made local on {relinked} pages, links to private names "
        f"without an element unlinked on {unlinked}, folds set on {folded} "
        f"({len(chapter)} chapter pages without), {added} API entries added to "
        f"search.json, CDN scripts for widgets removed from {stripped} pages"
    )
    return 0


if __name__ == "__main__":
    default = os.environ.get("QUARTO_PROJECT_OUTPUT_DIR", "_docs")
    out = sys.argv[1] if len(sys.argv) > 1 else default
    sys.exit(main(out, sys.argv[2] if len(sys.argv) > 2 else "."))
