#!/usr/bin/env python3
"""The site as a student sees it: checks the Doxygen HTML and the markdown pages it is made from.

  site_check.py html DIR     every page under DIR (the built site): no markup that Doxygen left
                             unrendered (@section, @code, @ref, an escaped <tt> or <strong>, a
                             literal **, a table row of pipes) in the text a reader sees, and every
                             internal link, anchor and image resolves
  site_check.py pages ROOT   the markdown pages (README.md, docs/*.md, NN-topic/*.md): no link
                             whose text runs onto a second line (Doxygen 1.9 leaves the rest of
                             such a page as raw markup and warns about nothing), no unescaped |
                             inside a comment in a table row (it splits the row's cells), and no
                             file name the repository does not hold

Prints one line per problem (file, what, where) and exits 1 if there is any, else 0.
Standard library only.
"""
import html.parser
import os
import re
import sys
import urllib.parse

# Text a reader sees that is markup Doxygen did not render. (Checked outside code: <pre>, <code>,
# code fragments and source listings are left out.)
RAW_MARKUP = [
    (re.compile(r"(^|\s)[@\\](section|subsection|subsubsection|code|endcode|ref|subpage|page)\b"),
     "a Doxygen command left as text"),
    (re.compile(r"<(tt|strong|b|em|code|a|br|sup|sub)\b[^>]*>", re.I), "an escaped HTML tag"),
    (re.compile(r"\*\*"), "a literal ** (bold markup not rendered)"),
    (re.compile(r"^\s*\|.*\|\s*$"), "a table row of pipes"),
    (re.compile(r"\|\s*:?-{3,}:?\s*\|"), "a table rule of pipes"),
    (re.compile(r"\]\([^()\s]+\)"), "a markdown link left as text"),
]

# Elements whose text is code, not prose.
CODE_TAGS = {"pre", "code", "script", "style", "tt", "kbd"}
CODE_CLASSES = {"fragment", "line", "memproto", "memname", "ttc", "fieldname", "memItemLeft",
                "memItemRight", "memTemplParams", "paramtype", "paramname", "params"}


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids = set()
        self.links = []  # (href, line)
        self.images = []
        self.text = []  # (text, line)
        self.stack = []  # one flag per open element: does it make its content code?
        self.code_depth = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name"):
            if a.get(key):
                self.ids.add(a[key])
        if tag == "a" and a.get("href"):
            self.links.append((a["href"], self.getpos()[0]))
        if tag == "img" and a.get("src"):
            self.images.append((a["src"], self.getpos()[0]))
        if tag in ("br", "img", "hr", "meta", "link", "input"):
            return
        classes = set((a.get("class") or "").split())
        code = tag in CODE_TAGS or bool(classes & CODE_CLASSES)
        self.stack.append((tag, code))
        self.code_depth += code

    def handle_endtag(self, tag):
        # close up to the matching element (HTML that Doxygen writes is well nested, mostly)
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                for _, code in self.stack[i:]:
                    self.code_depth -= code
                del self.stack[i:]
                return

    def handle_data(self, data):
        if self.code_depth == 0 and data.strip():
            self.text.append((data, self.getpos()[0]))


def parse(path, cache={}):
    if path not in cache:
        page = Page()
        with open(path, encoding="utf-8", errors="replace") as f:
            page.feed(f.read())
        cache[path] = page
    return cache[path]


def check_html(site):
    problems = []
    pages = []
    for folder, _, files in os.walk(site):
        if os.path.relpath(folder, site).startswith("search"):
            continue  # the search box's own pages: filled in by script
        pages += [os.path.join(folder, f) for f in files if f.endswith(".html")]
    for path in sorted(pages):
        rel = os.path.relpath(path, site)
        page = parse(path)
        for text, line in page.text:
            for piece in text.split("\n"):
                for pattern, what in RAW_MARKUP:
                    if pattern.search(piece):
                        problems.append(f"{rel}:{line}: {what}: {piece.strip()[:100]}")
                        break
        for href, line in page.links + page.images:
            url = urllib.parse.urlsplit(href)
            if url.scheme or href.startswith("//"):
                continue  # outside the site
            target = path if url.path == "" else os.path.normpath(
                os.path.join(os.path.dirname(path), urllib.parse.unquote(url.path)))
            if not os.path.exists(target):
                problems.append(f"{rel}:{line}: a link to a missing file: {href}")
                continue
            if url.fragment and target.endswith(".html"):
                if url.fragment not in parse(target).ids:
                    problems.append(f"{rel}:{line}: a link to a missing anchor: {href}")
    return problems, len(pages)


# File names a page may name that the repository does not hold: a student's homework copy, a
# library's header, a file the reader's own command writes.
# A placeholder in capitals (NAME.cu) or after one (<lesson>-sweep.csv) names no file either.
NOT_OURS = re.compile(r"^(v([0-9]+|N)_mine\.cu|cudnn\.h|set\.pgm|[A-Z]+\.[a-z]+)$")
FILE_NAME = re.compile(r"(?<![\w/.:>-])([\w./-]+\.(?:cu|cuh|h|c|txt|csv|md|py|sh|svg|gp|pgm|png))\b")


def repository_files(root):
    names = set()
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(("build", "."))]
        names.update(files)
    return names


def check_pages(root):
    problems = []
    ours = repository_files(root)
    pages = [os.path.join(root, "README.md")]
    for folder in sorted(os.listdir(root)):
        if re.match(r"^[0-9][0-9]-", folder) or folder == "docs":
            pages += sorted(os.path.join(root, folder, f)
                            for f in os.listdir(os.path.join(root, folder)) if f.endswith(".md"))
    for path in pages:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        # code blocks hold no links; blank them (keeping the line count)
        prose = re.sub(r"```.*?```", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text,
                       flags=re.S)
        for number, line in enumerate(prose.split("\n"), 1):
            if line.lstrip().startswith("|"):
                for comment in re.findall(r"<!--.*?-->", line):
                    if re.search(r"(?<!\\)\|", comment):
                        problems.append(f"{os.path.relpath(path, root)}:{number}: a | inside a "
                                        f"comment in a table row splits the row's cells; write "
                                        f"\\| there: {comment[:60]}")
        # every file a page names is one the reader has (not a course's private note, say)
        for number, line in enumerate(text.split("\n"), 1):
            for name in FILE_NAME.findall(re.sub(r"<?https?://\S+", " ", line)):
                base = os.path.basename(name)
                if base not in ours and not NOT_OURS.match(base):
                    problems.append(f"{os.path.relpath(path, root)}:{number}: names a file the "
                                    f"repository does not have: {name}")
        for m in re.finditer(r"\[([^\[\]]*\n[^\[\]]*)\]\(", prose):
            line = prose.count("\n", 0, m.start()) + 1
            problems.append(f"{os.path.relpath(path, root)}:{line}: a link whose text runs onto "
                            f"the next line (Doxygen leaves the page's rest unrendered): "
                            f"[{m.group(1).replace(chr(10), ' ')}]; keep [...] on one line")
    return problems, len(pages)


def main(argv):
    if len(argv) != 3 or argv[1] not in ("html", "pages"):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    check = check_html if argv[1] == "html" else check_pages
    if not os.path.isdir(argv[2]):
        print(f"site_check.py: {argv[2]}: no such folder", file=sys.stderr)
        return 2
    problems, count = check(argv[2])
    for p in problems:
        print(p)
    print(f"site_check.py {argv[1]}: {count} pages, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
