"""Parse one markdown note into front matter, title, tags, links, list items and chunks.

Pure: text in, a frozen ParsedNote out, no I/O. Links, tags and list items are read
from markdown-it tokens, so nothing inside code (fenced, indented or inline), raw HTML
(comments included) or `%%` comments counts; the small regexes only ever see text the
parser calls text. This is the one markdown reader: the ledger (`ledger.parse_ledger`)
and prospective items read the list items and links found here, by the one front
matter, tag and block-id rule (`syntax`).
"""

from __future__ import annotations

import datetime as dt
import math
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

import frontmatter
import yaml
from markdown_it import MarkdownIt
from markdown_it.rules_inline import backtick, image, link
from markdown_it.token import Token

from .rows import Link
from .syntax import BLOCK_ID, find_tags, front_matter_block

_MAX_FM_NODES = 10_000
_MAX_FM_DEPTH = 20
# markdown-it's own default. Past it the parser stops reading the enclosing block (a
# ledger's later entries too), so reaching it is a warning; 20 dropped everything after
# a list nested 10 deep.
_MAX_NESTING = 100
# Inline nesting is another matter. markdown-it finds where a link's label ends by
# skipping tokens, and a '[' inside the label is tried as a nested link, recursively,
# until the nesting limit: every '[' of a line full of them costs that many steps (100
# made 250 KB of '[' take minutes). Links nest a level or two in real notes; 8 keeps
# every label of the test vaults as it was and makes a '[' cost a few steps.
_INLINE_NESTING = 8
_MIN_SECTION_CHARS = 80
_HUGE_FACTOR = 4
# Stands in for an escaped or entity-encoded '#', '[' or ']' ("\#", "&#91;"), so
# that it never starts a tag or a wiki-link, as in Obsidian.
_ESCAPED = "\ue000"
_SYNTAX_CHARS = frozenset("#[]")

_WIKI = re.compile(r"(!?)\[\[([^\[\]\n]+)\]\]")
_BREAKS = frozenset({"softbreak", "hardbreak"})
_RUN_TYPES = frozenset({"text", "text_special"}) | _BREAKS
_PLAIN_TYPES = _RUN_TYPES | {"code_inline"}
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
# A task's checkbox opens its list item's text: "[ ]", "[x]", "[-]", "[/]", ...
_CHECKBOX = re.compile(r"\[(.)\](?:[ \t]+|$)")
_TAG_SPLIT = re.compile(r"[,\s]+")
_YAML = frontmatter.YAMLHandler()
# libyaml when present: several times faster on thousands of small front matters.
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class Chunk:
    """A slice of the body that is embedded on its own."""

    ord: int
    heading: str
    text: str


@dataclass(frozen=True)
class ListItem:
    """A list item whose first line is text (a paragraph), as markdown-it reads it.

    Items inside code, HTML blocks (comments too) or `%%` comments are not seen. Items
    in block quotes and callouts are.
    """

    line: int  # 1-based file line of the item's marker
    end: int  # last file line the item spans, nested items and sub-lines included
    mark: str | None  # a task's status character ("- [x]" -> "x"); None: not a task
    text: str  # the first line after the marker and checkbox, comments blanked
    raw: str  # that file line as written
    tags: tuple[str, ...] = ()  # tags on the item's first line
    block_id: str | None = None


@dataclass(frozen=True)
class Outline:
    """The list items and links of a note: what the ledger and item readers need."""

    items: tuple[ListItem, ...]
    links: tuple[Link, ...]


@dataclass(frozen=True)
class ParsedNote:
    """Everything the indexer needs from one note."""

    path: str
    title: str
    aliases: tuple[str, ...]
    tags: tuple[str, ...]
    links: tuple[Link, ...]
    chunks: tuple[Chunk, ...]
    frontmatter: dict = field(default_factory=dict, hash=False)
    body: str = ""
    warnings: tuple[str, ...] = ()
    block_ids: tuple[str, ...] = ()
    items: tuple[ListItem, ...] = ()

    @property
    def outline(self) -> Outline:
        """The note's list items and links."""
        return Outline(self.items, self.links)

    def fm(self, key: str, default: Any = None) -> Any:
        """Return front matter value `key`, or `default` when absent."""
        return self.frontmatter.get(key, default)


def _count_code_newlines(state: Any, silent: bool) -> bool:
    # CommonMark turns line endings inside a code span into spaces; remember how
    # many there were so later links in the paragraph keep their line numbers.
    start = state.pos
    if not backtick(state, silent):
        return False
    last = state.tokens[-1] if state.tokens else None
    if not silent and last is not None and last.type == "code_inline":
        last.meta["newlines"] = state.src.count("\n", start, state.pos)
    return True


def _wiki_as_text(state: Any, silent: bool) -> bool:
    # Keep a whole [[wiki link]] as plain text: the link rule would otherwise
    # re-scan at every '[', and '*' or '_' in a note name must stay literal.
    match = _WIKI.match(state.src, state.pos, state.posMax)
    if match is None:
        return False
    if not silent:
        state.pending += match.group(0)
    state.pos = match.end()
    return True


def _needs_a_close(rule):
    """A link or image rule that fails at once where it cannot succeed: no "](" follows
    (and the note defines no reference links, which need only a ']'). markdown-it would
    search for the label's end at every '[', nested ones too."""
    def bounded(state: Any, silent: bool) -> bool:
        last = state.env.get(_LAST_CLOSE)
        if last is None or last[0] is not state.src:
            last = state.env[_LAST_CLOSE] = (state.src, state.src.rfind("]("),
                                             state.src.rfind("]"))
        if state.pos > last[2 if state.env.get("references") else 1]:
            return False
        return rule(state, silent)
    return bounded


# env key: (inline source, index of its last "](", index of its last "]")
_LAST_CLOSE = "vaultmem_last_close"


def _inline_where_needed(state: Any) -> None:
    # Inline parsing is most of markdown-it's time. Text without '[' or '#' can
    # hold no link or tag, so it is skipped; headings are parsed for their text.
    # The inline parser is its own instance, with its own nesting limit.
    tokens = state.tokens
    for i, tok in enumerate(tokens):
        if tok.type != "inline":
            continue
        heading = i > 0 and tokens[i - 1].type == "heading_open"
        if heading or "[" in tok.content or "#" in tok.content:
            tok.children = []
            _INLINE.inline.parse(tok.content, _INLINE, state.env, tok.children)


def _make_markdown(nesting: int) -> MarkdownIt:
    # text_join would fold escapes ("\#") into plain text; we need to see them.
    md = MarkdownIt("commonmark", {"maxNesting": nesting}).enable("table") \
        .disable("text_join")
    md.inline.ruler.at("backticks", _count_code_newlines)
    md.inline.ruler.before("link", "wiki_link", _wiki_as_text)
    md.inline.ruler.at("link", _needs_a_close(link))
    md.inline.ruler.at("image", _needs_a_close(image))
    md.core.ruler.at("inline", _inline_where_needed)
    return md


_MD = _make_markdown(_MAX_NESTING)
_INLINE = _make_markdown(_INLINE_NESTING)


def parse_note(text: str, path: str, *, max_chunk_chars: int = 1200) -> ParsedNote:
    """Parse a note's full text (front matter included); never raises on any text."""
    lines = _normalize(text).split("\n")
    fm_text, offset = front_matter_block(lines)
    fm, warnings = _load_front_matter(fm_text)
    body_lines = lines[offset:]
    body = "\n".join(body_lines)
    tokens, found = _read_body(body, offset)
    if any(tok.level >= _MAX_NESTING - 1 for tok in tokens):
        warnings.append(f"nested more than {_MAX_NESTING // 2} levels deep: what follows the "
                        "deepest part of that block may not be read; nest less deeply")
    return ParsedNote(
        path=path,
        title=_title(fm, found.first_h1, path),
        aliases=_aliases(fm),
        tags=tuple(sorted(set(_fm_tags(fm)) | set(found.tags))),
        links=tuple(found.links),
        chunks=_with_summary(_chunks(body_lines, tokens, max(1, max_chunk_chars)),
                             summary(fm), max(1, max_chunk_chars)),
        frontmatter=fm,
        body=body,
        warnings=tuple(warnings),
        block_ids=tuple(dict.fromkeys(found.block_ids)),
        items=found.list_items(body_lines),
    )


def outline(text: str) -> Outline:
    """The list items and links of a note's full text, as `parse_note` finds them,
    without front matter values or chunks. Never raises on any text."""
    lines = _normalize(text).split("\n")
    _, offset = front_matter_block(lines)
    body_lines = lines[offset:]
    _, found = _read_body("\n".join(body_lines), offset)
    return Outline(found.list_items(body_lines), tuple(found.links))


def _read_body(body: str, offset: int) -> tuple[list[Token], _Collector]:
    """The body's block tokens, and what one walk over them found."""
    tokens = _MD.parse(_blank_comments(body))
    found = _Collector(offset)
    found.scan(tokens)
    return tokens, found


def _normalize(text: str) -> str:
    text = text.removeprefix("\ufeff")
    return text.replace("\r\n", "\n").replace("\r", "\n")


# --- Obsidian comments ------------------------------------------------------

# A fence at any list or quote depth: under a task (indented) or in a block quote (`> `),
# `%%` inside it is code too, not the start of a comment that hides the rest of the note.
_FENCE = re.compile(r"^[ \t>]*(`{3,}|~{3,})")
_COMMENT_MARK = re.compile(r"%%|`+")


def _blank_comments(body: str) -> str:
    """The body with every Obsidian comment (`%% ... %%`, inline or over many lines)
    turned into spaces, line breaks kept, so that links, tags and headings inside one
    count for nothing while every line keeps its number. `%%` inside fenced or inline
    code is text. A comment never closed runs to the end of the note, as in Obsidian.
    Chunks are cut from the original lines: a comment's words stay searchable.
    """
    if "%%" not in body:
        return body
    out: list[str] = []
    fence: str | None = None
    in_comment = False
    for line in body.split("\n"):
        opener = _FENCE.match(line)
        if fence is not None:
            if opener and opener.group(1)[0] == fence[0] and len(opener.group(1)) >= len(fence) \
                    and not line.lstrip(" \t>").strip().strip(fence[0]):
                fence = None
            out.append(line)
        elif opener and not in_comment:
            fence = opener.group(1)
            out.append(line)
        else:
            blanked, in_comment = _blank_line(line, in_comment)
            out.append(blanked)
    return "\n".join(out)


def _blank_line(line: str, in_comment: bool) -> tuple[str, bool]:
    """One line with its comment parts blanked; whether a comment is still open after it.
    Inline code (a backtick run closed by one of the same length) hides `%%`."""
    runs = [(m.start(), m.end()) for m in re.finditer("`+", line)] if "`" in line else []
    closers: dict[int, int] = {}
    latest: dict[int, int] = {}
    for start, end in reversed(runs):
        if end - start in latest:
            closers[start] = latest[end - start]
        latest[end - start] = end
    chars = list(line)
    start = 0 if in_comment else None
    pos = 0
    while found := _COMMENT_MARK.search(line, pos):
        if found.group(0)[0] == "`":
            pos = closers.get(found.start(), found.end()) if start is None else found.end()
            continue
        if start is None:
            start = found.start()
        else:
            chars[start:found.end()] = " " * (found.end() - start)
            start = None
        pos = found.end()
    if start is not None:
        chars[start:] = " " * (len(chars) - start)
    return "".join(chars), start is not None


# --- front matter -----------------------------------------------------------


def _load_front_matter(fm_text: str | None) -> tuple[dict, list[str]]:
    if fm_text is None:
        return {}, []
    try:
        data = _YAML.load(fm_text, Loader=_YAML_LOADER)
    except Exception as exc:  # yaml, recursion, bad timestamps: all one warning
        return {}, [f"broken YAML front matter ({_describe(exc)}); body indexed without it"]
    if data is None:
        return {}, []
    if not isinstance(data, dict):
        kind = type(data).__name__
        return {}, [f"front matter is not a mapping (got {kind}); ignored"]
    bounded = _Bounded()
    fm = bounded.convert(data, 0)
    if not bounded.truncated:
        return fm, []
    limits = f"{_MAX_FM_NODES} values, depth {_MAX_FM_DEPTH}"
    return fm, [f"front matter too large or too deeply nested (limit {limits}); truncated"]


def _describe(exc: Exception) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None)
    if mark is not None and problem:
        # +2: the YAML starts on file line 2, and marks are 0-based.
        return f"line {mark.line + 2}: {problem}"
    message = " ".join(str(exc).split())[:120]
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


class _Bounded:
    """JSON-safe copy of YAML data that visits at most _MAX_FM_NODES values.

    YAML aliases share objects, so a few hundred bytes can describe billions of
    values ("billion laughs"); the budget stops the copy from expanding them.
    """

    def __init__(self) -> None:
        self.left = _MAX_FM_NODES
        self.truncated = False

    def convert(self, value: Any, depth: int) -> Any:
        self.left -= 1
        if self.left < 0 or depth > _MAX_FM_DEPTH:
            self.truncated = True
            return None
        if isinstance(value, dict):
            return self._mapping(value, depth)
        if isinstance(value, (set, frozenset)):
            return self._sequence(sorted(value, key=str), depth)
        if isinstance(value, (list, tuple)):
            return self._sequence(value, depth)
        return _json_scalar(value)

    def _mapping(self, value: dict, depth: int) -> dict:
        out = {}
        for key, item in value.items():
            if self.left <= 0:
                self.truncated = True
                break
            out[_json_key(key)] = self.convert(item, depth + 1)
        return out

    def _sequence(self, value: Any, depth: int) -> list:
        out = []
        for item in value:
            if self.left <= 0:
                self.truncated = True
                break
            out.append(self.convert(item, depth + 1))
        return out


def _json_scalar(value: Any) -> Any:
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, (dt.date, dt.datetime, dt.time)):
        return value.isoformat()
    return str(value)


def _json_key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, bool):
        return {None: "null", True: "true", False: "false"}[key]
    return str(_json_scalar(key))


# --- title, aliases, front matter tags --------------------------------------


def _title(fm: dict, first_h1: str | None, path: str) -> str:
    title = fm.get("title")
    if isinstance(title, str) and title.strip():
        return title.strip()
    if first_h1:
        return first_h1
    name = re.split(r"[/\\]", path)[-1]
    return name[:-3] if name.lower().endswith(".md") else name


def _aliases(fm: dict) -> tuple[str, ...]:
    raw = fm.get("aliases", fm.get("alias"))
    items = raw.split(",") if isinstance(raw, str) else raw if isinstance(raw, list) else []
    names = (item.strip() for item in items if isinstance(item, str))
    return tuple(dict.fromkeys(name for name in names if name))


# Front-matter keys that hold an author's one-line account of the note (Hugo, Jekyll and
# Docusaurus `description`, Dendron `desc`, `summary`, `excerpt`, `abstract`).
SUMMARY_KEYS = ("description", "desc", "summary", "excerpt", "abstract")


def summary(fm: dict) -> str:
    """The note's front-matter summary (the first of SUMMARY_KEYS that holds text), or ""."""
    for key in SUMMARY_KEYS:
        value = fm.get(key)
        if isinstance(value, str) and value.strip():
            return " ".join(value.split())
    return ""


def _with_summary(chunks: tuple[Chunk, ...], text: str, limit: int) -> tuple[Chunk, ...]:
    """The summary searched as the body's opening: it says what the whole note is about,
    in the words a question about it uses, where a help page's first section may be a
    bare example. It joins the first chunk when both fit in `limit`, else it is a chunk of
    its own before the others; a body that already opens with it is left as it is."""
    if not text:
        return chunks
    text = text[:limit]
    if chunks and " ".join(chunks[0].text.split()).startswith(text):
        return chunks
    if chunks and len(text) + 1 + len(chunks[0].text) <= limit:
        first = chunks[0]
        return (Chunk(0, first.heading, f"{text}\n{first.text}"), *chunks[1:])
    return tuple(Chunk(i, c.heading, c.text) for i, c in enumerate((Chunk(0, "", text), *chunks)))


def _fm_tags(fm: dict) -> list[str]:
    raw = fm.get("tags", fm.get("tag"))
    items = raw if isinstance(raw, list) else [raw]
    words = []
    for item in items:
        if isinstance(item, (int, float)) and not isinstance(item, bool):
            item = str(item)
        if isinstance(item, str):
            words.extend(_TAG_SPLIT.split(item))
    tags = (word.lstrip("#").rstrip("/").lower() for word in words)
    return [tag for tag in tags if tag]


# --- links, inline tags, block ids ------------------------------------------


class _Collector:
    """Walks block tokens once, gathering links, tags, block ids and the first H1."""

    def __init__(self, offset: int) -> None:
        self.offset = offset
        self.links: list[Link] = []
        self.tags: list[str] = []
        self.block_ids: list[str] = []
        self.first_h1: str | None = None
        # (item map, first paragraph's text, its first line's tags) of each list item
        # whose first line is text
        self.items: list[tuple[list[int], str, tuple[str, ...]]] = []

    def scan(self, tokens: list[Token]) -> None:
        """Visit every inline token; code, fences and HTML blocks have none."""
        base, prev = 0, None
        for i, tok in enumerate(tokens):
            if tok.map:
                base = tok.map[0]
            if tok.type == "inline":
                self._block_context(tok, prev)
                before = len(self.tags)
                self._inline(tok.children or [], base)
                item = tokens[i - 2] if i >= 2 else None
                if item is not None and item.type == "list_item_open" and item.map \
                        and item.map[0] == base:
                    one_line = "\n" not in tok.content
                    tags = tuple(dict.fromkeys(self.tags[before:])) if one_line \
                        else _first_line_tags(tok)
                    self.items.append((item.map, tok.content, tags))
            prev = tok

    def list_items(self, body_lines: list[str]) -> tuple[ListItem, ...]:
        """The list items found, with file line numbers and their task checkbox read."""
        out = []
        for (first, last), content, tags in self.items:
            text = content.split("\n", 1)[0]
            box = _CHECKBOX.match(text)
            if box:
                text = text[box.end():]
            block = BLOCK_ID.search(text)
            out.append(ListItem(
                line=self.offset + first + 1, end=self.offset + last,
                mark=box.group(1) if box else None, text=text, raw=body_lines[first],
                tags=tags, block_id=block.group(1) if block else None))
        return tuple(out)

    def _block_context(self, tok: Token, prev: Token | None) -> None:
        if prev is None:
            return
        if prev.type == "paragraph_open":
            self.block_ids.extend(BLOCK_ID.findall(tok.content))
        elif prev.type == "heading_open" and prev.tag == "h1" and prev.level == 0:
            if self.first_h1 is None:
                self.first_h1 = _plain(tok.children or []) or None

    def _inline(self, children: list[Token], base: int) -> None:
        walk = _InlineWalk(self, base)
        for tok in children:
            walk.feed(tok)
        walk.flush()

    def add_run(self, run: str, first_line: int) -> None:
        """Collect the wiki-links and tags of one stretch of plain text."""
        has_links = "[[" in run
        if has_links:
            self._wiki_links(run, first_line)
        if "#" in run:
            # Split out the wiki-links so that "[[#Heading]]" is not a tag.
            gaps = _WIKI.split(run)[::3] if has_links else [run]
            for gap in gaps:
                self.tags.extend(_inline_tags(gap))

    def _wiki_links(self, run: str, first_line: int) -> None:
        pos = newlines = 0
        for match in _WIKI.finditer(run):
            newlines += run.count("\n", pos, match.start())
            pos = match.start()
            link = _wiki_link(match, self.offset + first_line + newlines + 1)
            if link is not None:
                self.links.append(link)

    def add_md_link(self, pending: list | None) -> None:
        """Record a finished markdown link started by _md_link_start."""
        if pending is None:
            return
        target, fragment, line, label = pending
        heading, block = _split_fragment(fragment)
        text = " ".join("".join(label).split()) or None
        self.links.append(Link(target, "markdown", heading, block, text, self.offset + line + 1))


class _InlineWalk:
    """Reads one inline token's children left to right, in runs of plain text."""

    def __init__(self, sink: _Collector, base: int) -> None:
        self.sink = sink
        self.base = base
        self.line = 0  # line breaks passed so far within the inline token
        self.start = 0  # self.line where the current run began
        self.parts: list[str] = []
        self.md_link: list | None = None
        self.in_autolink = False

    def feed(self, tok: Token) -> None:
        """Take the next child token."""
        if tok.type in _RUN_TYPES and not self.in_autolink:
            self._text(tok)
            return
        self.flush()
        if tok.type == "link_open":
            self.in_autolink = tok.markup == "autolink"
            self.md_link = None if self.in_autolink else _md_link_start(tok, self.base + self.line)
        elif tok.type == "link_close":
            self.sink.add_md_link(self.md_link)
            self.md_link, self.in_autolink = None, False
        elif tok.type == "code_inline":
            self.line += tok.meta.get("newlines", 0)
            self._label(tok.content)
        elif tok.type == "html_inline":
            self.line += tok.content.count("\n")

    def flush(self) -> None:
        """Hand the current run of text to the collector."""
        if self.parts:
            self.sink.add_run("".join(self.parts), self.base + self.start)
            self.parts = []

    def _text(self, tok: Token) -> None:
        if not self.parts:
            self.start = self.line
        if tok.type in _BREAKS:
            self.parts.append("\n")
            self.line += 1
            self._label(" ")
            return
        escaped = tok.type == "text_special" and tok.content in _SYNTAX_CHARS
        self.parts.append(_ESCAPED if escaped else tok.content)
        self._label(tok.content)

    def _label(self, text: str) -> None:
        if self.md_link is not None:
            self.md_link[3].append(text)


def _first_line_tags(tok: Token) -> tuple[str, ...]:
    """The tags on the first line of an inline token (a list item's own line)."""
    if "#" not in tok.content.split("\n", 1)[0]:
        return ()
    first = _Collector(0)
    walk = _InlineWalk(first, 0)
    for child in tok.children or []:
        if child.type in _BREAKS:
            break
        walk.feed(child)
    walk.flush()
    return tuple(dict.fromkeys(first.tags))


def _plain(children: list[Token]) -> str:
    """The visible text of an inline token: what a reader sees, without markup."""
    words = [" " if c.type in _BREAKS else c.content for c in children if c.type in _PLAIN_TYPES]
    return " ".join("".join(words).split())


def _wiki_link(match: re.Match, line: int) -> Link | None:
    inner = match.group(2).replace("\\|", "|")
    ref, _, label = inner.partition("|")
    target, _, fragment = ref.partition("#")
    heading, block = _split_fragment(fragment)
    target = target.strip()
    if not (target or heading or block):
        return None
    kind = "embed" if match.group(1) else "wiki"
    return Link(target, kind, heading, block, label.strip() or None, line)


def _split_fragment(fragment: str) -> tuple[str | None, str | None]:
    """(heading, block id) named by the part of a link after '#'."""
    fragment = fragment.strip()
    if fragment.startswith("^"):
        return None, fragment[1:].strip() or None
    return fragment or None, None


def _md_link_start(tok: Token, line: int) -> list | None:
    """[target, fragment, line, label parts] for a link to a local .md file, else None."""
    href = str(tok.attrs.get("href", ""))
    if not href or href.startswith("#") or _SCHEME.match(href):
        return None
    path, _, fragment = href.partition("#")
    target = unquote(path)
    if not target.lower().endswith(".md"):
        return None
    return [target, unquote(fragment), line, []]


def _inline_tags(text: str) -> list[str]:
    return [tag for _, tag in find_tags(text)]


# --- chunks -----------------------------------------------------------------


@dataclass
class _Section:
    heading: str
    starts: list[int]  # first line of each block; starts[0] opens the section
    end: int


def _chunks(lines: list[str], tokens: list[Token], limit: int) -> tuple[Chunk, ...]:
    """Split the body at headings, then long sections at block boundaries."""
    sections = _merge_small(_sections(lines, tokens), lines, limit)
    prefix = [0]
    for text in lines:
        prefix.append(prefix[-1] + len(text) + 1)
    pieces = []
    for section in sections:
        for start, end in _pack(section, prefix, limit):
            text = "\n".join(lines[start:end]).strip()
            pieces.extend((section.heading, part) for part in _cut(text, limit) if part)
    return tuple(Chunk(i, heading, text) for i, (heading, text) in enumerate(pieces))


def _sections(lines: list[str], tokens: list[Token]) -> list[_Section]:
    starts = sorted({tok.map[0] for tok in tokens if tok.map and _is_block_start(tok)})
    sections = [_Section("", [0], len(lines))]
    trail: list[tuple[int, str]] = []
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.level == 0 and tok.map:
            level = int(tok.tag[1:])
            while trail and trail[-1][0] >= level:
                trail.pop()
            trail.append((level, _plain(tokens[i + 1].children or [])))
            sections[-1].end = tok.map[0]
            path = " > ".join(name for _, name in trail if name)
            sections.append(_Section(path, [tok.map[0]], len(lines)))
    _distribute(sections, starts)
    return sections


def _is_block_start(tok: Token) -> bool:
    # Top-level blocks, plus the items of top-level lists so a long list splits.
    return tok.nesting >= 0 and (tok.level == 0 or tok.type == "list_item_open" and tok.level == 1)


def _distribute(sections: list[_Section], starts: list[int]) -> None:
    i = 0
    for section in sections:
        while i < len(starts) and starts[i] < section.end:
            if starts[i] > section.starts[0]:
                section.starts.append(starts[i])
            i += 1


def _merge_small(sections: list[_Section], lines: list[str], limit: int) -> list[_Section]:
    """Fold tiny sections (a lone heading, a one-liner) into the section after them."""
    out: list[_Section] = []
    carry: list[int] = []
    for i, section in enumerate(sections):
        starts = carry + section.starts
        size = len("\n".join(lines[starts[0]:section.end]).strip())
        carry = []
        if size == 0:
            continue
        if size < _MIN_SECTION_CHARS and i < len(sections) - 1:
            carry = starts
            continue
        if size < _MIN_SECTION_CHARS and out and _fits(out[-1], section, lines, limit):
            out[-1].starts.extend(starts)
            out[-1].end = section.end
            continue
        out.append(_Section(section.heading, starts, section.end))
    return out


def _fits(before: _Section, after: _Section, lines: list[str], limit: int) -> bool:
    return len("\n".join(lines[before.starts[0]:after.end]).strip()) <= limit


def _pack(section: _Section, prefix: list[int], limit: int) -> list[tuple[int, int]]:
    """Greedily group consecutive blocks into (start, end) line ranges of <= limit chars."""
    bounds = section.starts + [section.end]
    pieces = []
    first = bounds[0]
    for block_start, block_end in zip(bounds, bounds[1:], strict=False):
        if prefix[block_end] - prefix[first] - 1 > limit and block_start > first:
            pieces.append((first, block_start))
            first = block_start
    pieces.append((first, section.end))
    return pieces


def _cut(text: str, limit: int) -> list[str]:
    """Cut one oversized block into pieces of at most limit * _HUGE_FACTOR chars."""
    size = limit * _HUGE_FACTOR
    if len(text) <= size:
        return [text]
    pieces, start = [], 0
    while len(text) - start > size:
        end = _break_point(text, start, size)
        pieces.append(text[start:end].strip())
        start = end
    pieces.append(text[start:].strip())
    return [piece for piece in pieces if piece]


def _break_point(text: str, start: int, size: int) -> int:
    # Prefer a line break, then a space, in the second half of the window.
    for sep in ("\n", " "):
        at = text.rfind(sep, start + size // 2, start + size)
        if at > start:
            return at
    return start + size
