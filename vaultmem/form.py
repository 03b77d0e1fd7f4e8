"""Form: the commitments a person wrote in passing, found in a note's text.

Pure: `extract(text, day)` takes a note's full text and the day it was written and
returns candidate commitments, each with the ledger fields it would get (action,
trigger condition, due date), the links around it, a confidence and the reasons for
it. No model runs: a candidate is a sentence (or an open task line) that carries
obligation or intention phrasing a reader would hold the writer to ("need to", "I'll",
"promised Ana I'd", "remember to", "let's", "TODO", "- [ ]"), or an instruction with a
date or a condition ("when the parcel comes, send the old one back"); what only looks
like one is set aside with its reason: negated ("I'm not going to"), hypothetical ("if
I had time I would"), someone else's ("she has to"), past ("I had to"), done ("- [x]"),
a question, an opinion ("the council should").

The text is read from markdown-it tokens (`read_units`), so code, HTML comments and
`%% comments %%` never yield a candidate. Candidates are only suggestions: nothing here
writes the ledger, and nothing fires until the user accepts one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from pathlib import PurePosixPath

from .ledger import parse_task_line
from .text import parse, syntax
from .text.dates import DateMention, find_dates

# -------------------------------------------------------------------------- the reader


@dataclass(frozen=True)
class Unit:
    """One block of prose as a reader sees it: a paragraph or a list item's paragraph."""

    line: int  # file line (1-based) of its first line
    text: str  # visible text: markup, code, comments and link brackets removed
    breaks: tuple[int, ...] = ()  # offsets in `text` where a new source line starts
    task: str | None = None  # the task mark (" ", "x", "-", …) of a task list item
    raw: str = ""  # the source of its first line, for task lines
    links: tuple[tuple[int, str], ...] = ()  # (offset in text, link target)
    list_item: bool = False
    listed_under: str = ""  # the lead-in of the list it is in ("Need to:") or its heading

    def line_at(self, offset: int) -> int:
        return self.line + sum(1 for b in self.breaks if b <= offset)


_COMMENTS = (("%%", "%%"), ("<!--", "-->"))
_TASK_MARK = re.compile(r"^\[(.)\]\s+")
_CODE_MARK = "\u2063"  # stands in for inline code in the text the cues are read from


def _blank_comments(body: str) -> str:
    """`body` with each `%% ... %%` and `<!-- ... -->` turned into spaces (line breaks
    kept), the earliest opener first. Linear: each kind's next opener is found once and
    looked for again only once the text before it is done, and an opener that finds
    no closer means no later opener of its kind can, so that kind is dropped (a search
    from every unclosed `<!--` to the end of the note was quadratic)."""
    parts, done = [], 0
    ahead = {kind: body.find(kind[0]) for kind in _COMMENTS}  # next opener of each kind
    while ahead := {kind: at for kind, at in ahead.items() if at >= 0}:
        (opener, closer), start = min(ahead.items(), key=lambda item: item[1])
        end = body.find(closer, start + len(opener))
        if end < 0:
            del ahead[(opener, closer)]
            continue
        end += len(closer)
        parts += [body[done:start], re.sub(r"[^\n]", " ", body[start:end])]
        done = end
        ahead = {kind: at if at >= done else body.find(kind[0], done)
                 for kind, at in ahead.items()}
    return "".join(parts) + body[done:]


def read_units(body: str, first_line: int = 1) -> list[Unit]:
    """The prose blocks of a note body, from markdown-it tokens.

    The one place that turns markdown into text for Form: fenced and indented code and
    HTML blocks have no inline tokens, comments are blanked (keeping line numbers), and
    inline code is masked. `first_line` is the file line of the body's first line.
    """
    blanked = _blank_comments(body)
    tokens = parse._MD.parse(blanked)
    lines = blanked.split("\n")
    units: list[Unit] = []
    heading, last_text, leads = "", "", []
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            heading = tokens[i + 1].content.strip()
        elif tok.type in ("bullet_list_open", "ordered_list_open"):
            lead = last_text if last_text.rstrip().endswith(":") else ""
            leads.append(lead or (leads[-1] if leads else heading))
        elif tok.type in ("bullet_list_close", "ordered_list_close"):
            leads.pop()
        elif tok.type == "inline" and tok.map and tokens[i - 1].type == "paragraph_open":
            in_item = bool(leads) and tok.level > 1
            first_of_item = i >= 2 and tokens[i - 2].type == "list_item_open"
            unit = _unit(tok, first_line, lines, in_item, first_of_item,
                         leads[-1] if leads else heading)
            units.append(unit)
            last_text = unit.text
    return units


def _unit(tok, first_line: int, lines: list[str], in_item: bool, first_of_item: bool,
          lead: str) -> Unit:
    content = tok.content
    task = None
    if in_item and first_of_item:
        mark = _TASK_MARK.match(content)
        if mark:
            task = mark.group(1)
    children = tok.children
    if not children:  # parse.py skips inline parsing where no link or tag can be
        children = []
        parse._MD.inline.parse(content, parse._MD, {}, children)
    text, breaks, links = _visible(children)
    if task is not None:
        text = _TASK_MARK.sub("", text, count=1)
    start = tok.map[0]
    return Unit(first_line + start, text, tuple(breaks), task,
                lines[start] if start < len(lines) else "", tuple(links), in_item, lead)


def _visible(children) -> tuple[str, list[int], list[tuple[int, str]]]:
    """The text a reader sees, with code masked and wiki-links shown as their labels."""
    parts: list[str] = []
    breaks: list[int] = []
    links: list[tuple[int, str]] = []
    size = 0
    for child in children:
        if child.type in ("softbreak", "hardbreak"):
            parts.append("\n")
            size += 1
            breaks.append(size)
        elif child.type == "code_inline":
            piece = _CODE_MARK * max(1, len(child.content))
            parts.append(piece)
            size += len(piece)
        elif child.type in ("text", "text_special"):
            for piece, target in _split_links(child.content):
                if target:
                    links.append((size, target))
                parts.append(piece)
                size += len(piece)
    return "".join(parts), breaks, links


_WIKI = re.compile(r"!?\[\[([^\[\]\n]+)\]\]")


def _split_links(text: str):
    pos = 0
    for m in _WIKI.finditer(text):
        yield text[pos:m.start()], None
        inner = m.group(1).replace("\\|", "|")
        ref, _, label = inner.partition("|")
        target = ref.partition("#")[0].strip()
        shown = (label.strip() or ref.partition("#")[0].strip() or ref.strip("#^ ")).strip()
        yield shown, target or None
        pos = m.end()
    yield text[pos:], None


# ------------------------------------------------------------------------ the note day

_DAILY = re.compile(r"(?<!\d)(\d{4})[-_.](\d{2})[-_.](\d{2})(?!\d)")


def note_day(frontmatter: dict, path: str, mtime_ns: int | None = None) -> date | None:
    """The day a note was written: front matter `date` (else `created`), else a date in
    its file name (a daily note, "2026-03-04.md" or "Standup 2026-03-04.md"), else its
    front matter `updated`, else its modification time. Everything before the last is
    part of the note, so it survives a copy or a `git clone` (which sets every mtime to
    the day of the clone, and a note's "next week" to a week after it)."""
    for key in ("date", "created"):
        found = _as_day(frontmatter.get(key))
        if found:
            return found
    stem = PurePosixPath(path).name
    match = _DAILY.search(stem)
    if match:
        found = _as_day("-".join(match.groups()))
        if found:
            return found
    found = _as_day(frontmatter.get("updated"))
    if found:
        return found
    if mtime_ns:
        return datetime.fromtimestamp(mtime_ns / 1e9).date()
    return None


def _as_day(value) -> date | None:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str) and len(value) >= 8:
        try:
            return date.fromisoformat(value.strip()[:10])
        except ValueError:  # "4 March 2026", "March 4, 2026": a day with its year
            written = [d for d in find_dates(value, date(2000, 1, 1)) if d.kind == "absolute"
                       and re.search(r"\d{4}", d.text)]
            return written[0].day if written else None
    return None


# -------------------------------------------------------------------------- candidates


@dataclass(frozen=True)
class Candidate:
    """A commitment found in a note: what the ledger line would say, and why."""

    key: str  # the sentence, normalised: its identity within the note
    line: int
    text: str  # the sentence (or task line) as written, markup removed
    action: str
    condition: str | None
    due: date | None
    date_text: str | None
    start: date | None  # a period's first day, when it comes before `due`: the window opens
    kind: str  # task | todo | reminder | promise | request | obligation | intention |
    #            conditional | instruction
    confidence: float
    why: tuple[str, ...]
    links: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rejected:
    """A sentence that looks like a commitment but is not one, and why (for evaluation)."""

    line: int
    text: str
    reason: str


@dataclass
class Found:
    """What `extract` found in one note."""

    candidates: list[Candidate] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)


def extract(text: str, day: date) -> Found:
    """Candidate commitments in a note's full text (front matter included, so lines are
    file lines), dates resolved against `day`, the day the note was written."""
    lines = parse._normalize(text).split("\n")
    _, offset = syntax.front_matter_block(lines)
    found = Found()
    previous = None
    for unit in read_units("\n".join(lines[offset:]), offset + 1):
        if unit.task is not None:
            _task(unit, day, found)
        elif _STRUCK.match(unit.text):
            found.rejected.append(Rejected(unit.line, unit.text.strip(), "struck through"))
        else:
            for start, sentence in _sentences(unit.text):
                _sentence(unit, start, sentence, day, found, previous)
        previous = unit
    return found


# -------------------------------------------------------------------------- task lines


_STRUCK = re.compile(r"^\s*~~.+?~~")


def _task(unit: Unit, day: date, found: Found) -> None:
    text = unit.text.strip()
    if _STRUCK.match(text):
        found.rejected.append(Rejected(unit.line, text, "struck through"))
        return
    if unit.task not in (" ", "/"):
        reason = {"x": "done task", "X": "done task", "-": "cancelled task"}.get(
            unit.task, f"task marked [{unit.task}]")
        found.rejected.append(Rejected(unit.line, text, reason))
        return
    entry = parse_task_line(unit.raw.strip())
    action = _strip_dates(entry.action if entry else text)
    start, due, date_text = _written_window(entry)
    why = ["an open task line"]
    if due:
        why.append(f"its date {due.isoformat()}")
    else:
        mention = _pick_date(_dates(action, day), 0, len(action))
        if mention and not mention.past:
            start, due = due_window(mention, _before_event(action[:mention.start], mention))
            date_text = mention.text
            action = _remove_date(action, mention, 0)
            why.append(_reading(mention, start, due))
    action = _clean_action(action)
    if not action:
        return
    condition = entry.condition if entry else None
    confidence = 0.9 if not text.rstrip().endswith("?") else 0.4
    links = tuple(dict.fromkeys(t for _, t in unit.links))
    found.candidates.append(Candidate(
        _key(text), unit.line, text, action, condition, due, date_text, start, "task",
        confidence, tuple(why), links))


def _written_window(entry) -> tuple[date | None, date | None, None]:
    """(start, due, no date text) of a task line's own fields: due is `📅`, else the
    earliest of its start and scheduled dates; start is the earliest of those before due."""
    if entry is None or entry.fires_from is None:
        return None, None, None
    due = entry.due or entry.fires_from
    start = entry.fires_from if entry.fires_from < due else None
    return start, due, None


_EMOJI_FIELD = re.compile(r"[📅📆🗓⏳🛫➕✅❌🔁🔺⏫🔼🔽⏬]\ufe0f?\s*\S*")


def _strip_dates(text: str) -> str:
    return _EMOJI_FIELD.sub(" ", text)


# -------------------------------------------------------------------------- sentences

_ABBREVIATIONS = frozenset(
    "dr mr mrs ms prof st e.g i.e etc vs approx no jan feb mar apr jun jul aug sep sept oct "
    "nov dec mon tue tues wed thu thur thurs fri sat sun a.m p.m inc ltd co est".split())
_BOUNDARY = re.compile(r"[.!?]+[\"')\]]*(?=\s+[\"'(\[]*[A-Za-z0-9\u2063])|[.!?]+[\"')\]]*\s*$"
                       r"|;\s+|\s+[—–]\s+(?!(?:and|but|so|or|which|though|then|not)\b)|\s+-\s+"
                       r"(?=[A-Z])|\n")


def _sentences(text: str) -> list[tuple[int, str]]:
    """(offset, sentence) pieces: at sentence ends, semicolons, dashes and line breaks
    (a wrapped line that goes on in lower case stays one sentence)."""
    out, start = [], 0
    for m in _BOUNDARY.finditer(text):
        if m.group(0) == "\n" and _continues(text, m.start()):
            continue
        if m.group(0).startswith(".") and _abbreviation(text, m.start()):
            continue
        if m.group(0).strip()[:1] in "—–-" and (not _new_clause(text[m.end():])
                                                  or len(text[start:m.start()].split()) < 3):
            continue  # "post office — return the shoes": a label, not a sentence
        end = m.end() if m.group(0)[0] in ".!?" else m.start()
        piece = text[start:end]
        if piece.strip():
            out += _coordinated(start + len(piece) - len(piece.lstrip()), piece.strip())
        start = m.end()
    piece = text[start:]
    if piece.strip():
        out += _coordinated(start + len(piece) - len(piece.lstrip()), piece.strip())
    return out


def _new_clause(after: str) -> bool:
    """After a dash: a clause of its own ("— she needs it back"), not an aside."""
    word = re.match(r"\s*([\w'’]+)", after)
    if not word:
        return False
    w = word.group(1).lower()
    return w in ("i", "we", "you", "he", "she", "they", "it", "i'll", "i’ll", "i'm", "i’m",
                 "we'll", "we’ll", "she's", "he's", "they're", "it's", "there", "this",
                 "that") or w in _VERBS


_AND_ME = re.compile(r",\s+(?=and\s+(?:i|you|we)\b)", re.IGNORECASE)


def _coordinated(start: int, piece: str) -> list[tuple[int, str]]:
    """"…by the 16th, and you promised Clara you'd…": two commitments, two sentences."""
    for m in _AND_ME.finditer(piece):
        left, right = piece[:m.start()], piece[m.end():]
        if _first_cue(left) and _first_cue(right) and not _DID.match(right):
            return [(start, left), *_coordinated(start + m.end(), right)]
    return [(start, piece)]


def _continues(text: str, at: int) -> bool:
    before = text[:at].rstrip()
    after = text[at + 1:].lstrip()
    return bool(before) and before[-1] not in ".!?:;" and after[:1].islower()


def _abbreviation(text: str, at: int) -> bool:
    word = re.search(r"([A-Za-z.]+)$", text[:at])
    if not word:
        return False
    token = word.group(1).lower().strip(".")
    return token in _ABBREVIATIONS or len(token) == 1


# -------------------------------------------------------------------------- the cues
# Each cue names the phrase that makes a sentence a commitment, its family, and a base
# confidence: how sure such a sentence is one the writer must act on (set on the dev
# set, scripts/eval_data/form_dev, and the blueprint notes; never on the blind set).

_CUES: list[tuple[str, str, float]] = [
    # reminders
    (r"\b(?:remember|remind\s+myself|remind\s+me|must\s+remember|need\s+to\s+remember|"
     r"got\s+to\s+remember|have\s+to\s+remember)\s+to\s+(?=\w)", "reminder", 0.85),
    (r"\b(?:don'?t|don’t|do\s+not|mustn'?t|mustn’t|must\s+not|never)\s+forget\s+"
     r"(?:to\s+|about\s+)?(?=\w)", "reminder", 0.85),
    (r"\b(?:note|reminder|memo)\s+(?:to|for)\s+(?:self|myself|me)\s*[:,-]?\s*", "reminder",
     0.85),
    (r"^\s*(?:remember|reminder|important|don'?t\s+forget)\s*[:!-]\s*", "reminder", 0.8),
    (r"\b(?:make|be)\s+sure\s+(?:to\s+|(?:that\s+)?(?:i|you|we)\s+)(?=\w)", "reminder", 0.8),
    # promises and requests
    (r"\b(?:i\s+)?(?:promised|told|assured|reassured|swore\s+to)\s+(?:[\w'’-]+\s+){0,3}?"
     r"(?:that\s+)?(?:i|we|you)(?:'d|’d|\s+would|'ll|’ll|\s+will)\s+", "promise", 0.85),
    (r"\b(?:i\s+)?(?:promised|swore)\s+(?:[\w'’-]+\s+){0,2}?to\s+(?=\w)", "promise", 0.85),
    (r"\b(?:i\s+)?(?:said|agreed|confirmed)\s+(?:that\s+)?(?:i|we)(?:'d|’d|\s+would|'ll|’ll|"
     r"\s+will)\s+", "promise", 0.8),
    (r"\b(?:my|our|an?|the)\s+(?:\w+\s+)?(?:appointment|appt|check-?up|interview|"
     r"consultation|booking|reservation|viva|exam|hearing|smear\s+test|scan)\b(?=.*\b(?:on|at|"
     r"to|for|is|moved|tomorrow|today|next)\b)", "appointment", 0.55),
    (r"\b(?:i\s+|we\s+)?(?:agreed|offered|volunteered|committed|signed\s+up|pledged|"
     r"undertook)\s+to\s+(?=\w)", "promise", 0.85),
    (r"\bi\s+(?:promise|swear)\s+(?:to\s+|i'?ll\s+|i\s+will\s+)", "promise", 0.85),
    (r"\bmade\s+me\s+promise\s+(?:to\s+|that\s+|i'?d\s+|i'?ll\s+)?", "promise", 0.7),
    (r"\b(?:asked|wants|wanted|needs|needed|expects|reminded|told|begged|got)\s+me\s+to\s+"
     r"(?=\w)", "request", 0.7),
    (r"\bi\s+owe\s+", "obligation", 0.75),
    (r"\b(?:wants?|needs?|expects?|asked\s+for)\s+(?=(?:the|my|our|a|an|those|these|this|"
     r"that|his|her|their)\b.*\b(?:by|before|no\s+later\s+than)\b)", "deadline", 0.55),
    (r"^\s*(?:me|myself)\s*[:–-]\s*", "obligation", 0.75),
    (r"\b(?:i'm|i’m|i\s+am|we're|we’re|we\s+are)\s+(?:responsible|in\s+charge|on\s+the\s+hook)"
     r"\s+for\s+", "obligation", 0.75),
    (r"\b(?:it's|it’s|it\s+is|that's|that’s)\s+(?:on\s+me|my\s+job|my\s+turn|up\s+to\s+me|"
     r"my\s+responsibility)\s+to\s+(?=\w)", "obligation", 0.8),
    (r"\b(?:action|actions|ai|next\s+step|todo)\s*(?:for\s+me)?\s*[:-]\s*(?:me|i)\s+(?:to\s+)?",
     "obligation", 0.8),
    # obligations
    (r"\b(?:need|needs)\s+to\s+(?=\w)", "obligation", 0.8),
    (r"\b(?:have|has)\s+(?:got\s+)?to\s+(?=\w)", "obligation", 0.8),
    (r"\bmust\s+(?!have\b|be\s+(?:nice|lovely|great|hard|awful))(?=\w)", "obligation", 0.8),
    (r"\b(?:got\s+to|gotta|'ve\s+got\s+to|’ve\s+got\s+to)\s+(?=\w)", "obligation", 0.8),
    (r"\bought\s+to\s+(?=\w)", "obligation", 0.6),
    (r"\b(?:i'd|i’d|we'd|we’d)\s+better\s+(?=\w)", "obligation", 0.75),
    (r"\b(?:am|'m|’m|are|'re|’re)\s+(?:supposed|meant|due)\s+to\s+(?=\w)", "obligation", 0.75),
    (r"\b(?:i'm|i’m|i\s+am|we're|we’re|we\s+are)\s+to\s+(?=\w)", "obligation", 0.75),
    (r"\bshould\s+(?=\w)", "obligation", 0.6),
    (r"\b(?:needs|need)\s+(?=\w+ing\b)", "obligation", 0.6),
    (r"\b(?:is|are|'s)\s+due\b", "obligation", 0.6),
    # intentions
    (r"\b(?:i|we)(?:'ll|’ll|\s+will|\s+shall)\s+(?=\w)", "intention", 0.75),
    (r"\byou(?:'ll|’ll|\s+will)\s+(?=(?:need|have|want)\s+to\b)", "obligation", 0.75),
    (r"^\s*(?:it'?s\s+|it’s\s+)?(?:high\s+)?time\s+to\s+(?=\w)", "intention", 0.6),
    (r"\b(?:i'm|i’m|i\s+am|we're|we’re|we\s+are|am)\s+(?:going\s+to|gonna)\s+(?=\w)",
     "intention", 0.75),
    (r"^\s*(?:going\s+to|gonna|will|shall)\s+(?=\w)", "intention", 0.7),
    (r"\b(?:let's|let’s|let\s+us)\s+(?=\w)", "intention", 0.75),
    (r"\b(?:i|we)\s+(?:plan|intend|mean|aim|want|need)\s+to\s+(?=\w)", "intention", 0.7),
    (r"\b(?:i'm|i’m|i\s+am|we're|we’re)\s+(?:planning|intending|aiming)\s+to\s+(?=\w)",
     "intention", 0.7),
    (r"(?:\b(?:(?:i've|i’ve|i\s+have)\s+been|i\s+keep|i'm|i’m|i\s+am)|^\s*(?:keep|been))\s+"
     r"meaning\s+to\s+(?=\w)", "intention", 0.7),
    (r"^\s*(?:don'?t|don’t|do\s+not)\s+(?!forget|worry|bother|panic|mind|know|think|care|"
     r"remember|like|want|need|feel|see|get|understand|blame|ask|tell|judge|laugh|expect|"
     r"believe|regret|wait|let)(?=[a-z])", "reminder", 0.55),
    (r"\b(?:only\s+if|as\s+long\s+as|provided|providing|so\s+long\s+as|unless)\s+(?:i|we)\s+"
     r"(?!had\b|were\b|was\b|could\b|would\b|did\b)(?=\w)", "obligation", 0.65),
]
_CUE_RES = [(re.compile(p, re.IGNORECASE), family, base) for p, family, base in _CUES]
# "I'm writing in" is a plan only after a condition: "When they open it, I'm writing in".
_PROGRESSIVE = re.compile(r"\b(?:i'm|i’m|i\s+am|we're|we’re|we\s+are)\s+(?!not\b|going\b)"
                          r"(?=\w+ing\b)", re.IGNORECASE)

_MY_PLAN = re.compile(r"\b(?:i'm|i’m|i\s+am)\s+(?!not\b|going\b)(?=\w+ing\b)", re.IGNORECASE)
_CONJ = (r"when(?:ever)?|if|once|as\s+soon\s+as|after|before|the\s+moment|the\s+day|"
         r"(?:the\s+)?next\s+time|by\s+the\s+time|in\s+case|the\s+minute|the\s+first\s+time|"
         r"until|till|while")
_ACTION_ITEM = re.compile(r"^\s*(?:action(?:\s+items?)?|actions|ai|next\s+steps?|follow-?ups?)\s*"
                          r"(?:\((?P<who>[^)]{1,30})\)|for\s+(?P<who2>\w+))?\s*[:–-]\s*"
                          r"(?:(?:me|i)\s+(?:to\s+)?)?(?=\w)", re.IGNORECASE)
_TODO = re.compile(r"^\s*(?:TODO|To-?do|FIXME)\b\s*[:\-–]?\s*(?P<rest>.+)$", re.IGNORECASE)
_CONDITION_LEAD = re.compile(
    rf"^\s*(?:(?:but|and|so|oh|also)\s+)?(?P<conj>{_CONJ})\s+(?P<cond>[^,]+?),\s*(?P<main>.+)$",
    re.IGNORECASE)
_CONDITION_HEAD = re.compile(rf"(?:^|\b)(?P<conj>{_CONJ})\s+(?P<cond>.+?)\s*$", re.IGNORECASE)
_CONDITION_TAIL = re.compile(rf"\s*,?\s+\b(?P<conj>{_CONJ})\s+(?P<cond>.+)$", re.IGNORECASE)
_BARE_CONJ = frozenset({"when", "whenever", "if", "once", "as soon as", "next time",
                        "the next time", "the moment", "the minute", "in case",
                        "the first time", "the day"})

# Base-form verbs that start an instruction to oneself ("Call the bank on Friday"). Left
# out: kitchen verbs (a recipe's "add more flour" is no commitment) and verbs whose past
# tense looks the same ("set", "put", "read", "cut": a diary's "Set up alerts" is done).
_VERBS = frozenset("""
accept advertise agree alert amend apply appoint approve archive arrange ask
attach attend balance bathe bin bleed book borrow brief bring
brush buy call cancel carry catch chase check chop-up claim clean clear close collect
come comment compare complain complete confirm connect contact cook copy correct cover
declutter decide defrost delete deliver deposit descale dig discuss dispose do download
draft drain drink drive drop dry dust email empty enrol enroll exchange fax feed fetch
file fill find finish fit fix flag fold follow forward frame fund get give go grab grease
hand hang hire hoover inform insure invite invoice iron issue join keep label leave lend
let-know lift list load lock log look mail make mark measure meet mend message mop move
mow nip note notify oil order organise organize pack page paint park pay phone photograph
pick ping plan plant plug polish pop post practise practice prepare present price print
prune pump raise rebook recharge reclaim record recycle redo refill refund register
reheat remind remove renew rent reorder repair repaint replace reply report repot
request research reschedule reserve resend reset respond restock return review revise
ring rinse run sand save scan schedule scrub sell send service sew share sharpen
shop show shred sign sort sow speak sponsor start stock stop store submit swap sweep
take talk tell test text thank tidy tighten top transfer trim try turn tune unblock
unpack unsubscribe update upgrade upload use vacuum visit walk wash water wax weed wipe
withdraw wrap write
""".split())
# Verbs whose past tense looks the same: in a diary "Set up the alerts" is already done,
# so they count only as items of a to-do list.
_AMBIGUOUS_VERBS = frozenset("set put read cut let shut quit hit spread reset upset".split())

_HUMAN = frozenset("""
he she they him her them his their someone somebody everyone everybody anyone anybody
nobody people person sister brother mum mom dad mother father wife husband partner boss
manager colleague colleagues team kids children child son daughter friend friends
neighbour neighbours neighbor neighbors landlord landlady doctor nurse builder builders
plumber electrician council government school company supervisor co-author coauthor
client customer seller sellers buyer buyers agent accountant lawyer solicitor teacher
head headteacher gp dentist vet vets mechanic physio physiotherapist surgeon consultant
bank staff hr finance management aunt uncle gran granny grandma grandpa grandad cousin
niece nephew baby kid director ceo cto receptionist student students pupils guys girls
man woman men women girlfriend boyfriend fiance fiancé fiancee flatmate roommate
housemate mate pal guy lady chap bloke boss's parents in-laws family registrar office
""".split())
_HEDGES = re.compile(r"\b(?:probably|i\s+guess|i\s+suppose|ideally|eventually|"
                     r"at\s+some\s+point|sometime|some\s+time|i\s+think|i\s+reckon)\b",
                     re.IGNORECASE)
_MAYBE = re.compile(r"\b(?:maybe|perhaps|possibly|might|someday|some\s+day|one\s+day|"
                    r"one\s+of\s+these\s+days)\b", re.IGNORECASE)
_SOMEDAY = re.compile(r"\b(?:at\s+some\s+point|some\s+day|someday|one\s+day|eventually|"
                      r"get\s+round\s+to|get\s+around\s+to|one\s+of\s+these\s+days)\b",
                      re.IGNORECASE)
_EVERYONE_SAYS = re.compile(r"\b(?:everyone|everybody|people|they|someone|somebody)\s+"
                            r"(?:keeps?\s+|always\s+)?(?:says?|said|tells?\s+me|telling\s+me|"
                            r"told\s+me|reckons?|thinks?)\b", re.IGNORECASE)
_NOT_MY_JOB = re.compile(r"\b(?:not\s+my\s+(?:problem|job|call|responsibility)|"
                         r"(?:his|her|their)\s+(?:team's\s+|own\s+)?(?:job|problem|"
                         r"responsibility)|not\s+me)\b", re.IGNORECASE)
_HYPOTHETICAL = re.compile(
    r"\b(?:would|could|might|wish|if\s+only|if\s+i\s+(?:had|were|was|could|won|ever)|"
    r"if\s+we\s+(?:had|were|ever|could|won)|it'?d\s+be|it\s+would\s+be|i'?d\s+(?:love|like)|"
    r"in\s+an\s+ideal\s+world|in\s+theory|hopefully)\b", re.IGNORECASE)
_REPORTED = re.compile(r"\b(?:says?|said|thinks?|thought|reckons?|suggest(?:s|ed)?|"
                       r"recommend(?:s|ed)?|told\s+me|keeps\s+saying)\b(?:\s+that)?\s+"
                       r"(?:i|we)\s*$", re.IGNORECASE)
_NEGATION = re.compile(
    r"\b(?:not|never|no\s+longer|don'?t|doesn'?t|didn'?t|won'?t|shouldn'?t|mustn'?t|"
    r"needn'?t|can'?t|cannot|isn'?t|aren'?t|wasn'?t|weren'?t|haven'?t|hasn'?t|no\s+need|"
    r"don’t|doesn’t|didn’t|won’t|shouldn’t|mustn’t|needn’t|can’t|isn’t|aren’t)\b",
    re.IGNORECASE)
_PAST_CUE = re.compile(
    r"\b(?:had\s+to|needed\s+to|was\s+(?:going|supposed|meant)\s+to|were\s+(?:going|supposed)"
    r"\s+to|wanted\s+to|should\s+have|must\s+have|used\s+to|would\s+have|could\s+have|"
    r"should've|must've|would've|could've)\b", re.IGNORECASE)
_DONE = re.compile(
    r"\b(?:already|(?:and|which)\s+(?:i|we)\s+(?:did|have|had)|and\s+did|done|sorted|"
    r"finished|dealt\s+with|taken\s+care\s+of|ticked\s+off|completed|finally\s+did)\b",
    re.IGNORECASE)
_DID = re.compile(r"\s*[,;—–-]?\s*(?:and|which)\s+(?:i|we)\s+(?:did|have|had|have\s+done)\b|"
                  r"[,;—–-]\s*(?:i|we)\s+did\b", re.IGNORECASE)
_MARKED_DONE = re.compile(r"✅|✔|☑|^\s*(?:done|sorted|completed|finished)\s*[:!–-]|"
                          r"[(\[—–-]\s*(?:done|sorted|completed)\s*[)\]]?\W*$", re.IGNORECASE)
_EPISTEMIC = re.compile(
    r"^(?:be|have|last|arrive|work|help|suffice|do\s+the\s+trick|come|cover|cost|include|"
    r"contain|involve|mean|matter|count|"
    r"take\s+(?:about|around|a\s+(?:few|couple))|get\s+(?:better|easier|worse))\b",
    re.IGNORECASE)
_NOT_AN_ACTION = re.compile(
    r"^(?:believe|bet|admit|say|guess|know|wonder|miss|see\s+(?:how|what|if|whether)|see\W*$|"
    r"laugh|love|vent|rant|confess|hand\s+it\s+to|admire|feel|pretend|"
    r"wait\s+and\s+see|hope\b|face\s+it|be\s+honest|be\s+real|just\s+say|not|never|try\s+not|"
    r"keep\s+(?:an\s+eye|my\s+fingers)|think\s+about\s+it|start\s+thinking|play\s+it|"
    r"put\s+it\s+this\s+way|leave\s+it\s+there|agree\s+to\s+disagree|call\s+it\s+a\s+day)"
    r"(?!\w)", re.IGNORECASE)
_PARTICIPLE = re.compile(r"^\s*be\s+(?:\w+ed|\w+en|done|paid|sent|made|built|bought|sold|"
                         r"kept|left|put|set|cut|read|signed|back|in|out|ready|there|home|"
                         r"sorted|over)\b", re.IGNORECASE)
_PRONOUN = re.compile(r"\b(?:i|we|you|he|she|they|i'm|i’m|we're|we’re|i've|i’ve|he's|she's|"
                      r"they're|they've)\b", re.IGNORECASE)
_CLAUSE_BREAK = re.compile(r",\s*(?:but|so|and|because|though|although|while|whereas|"
                           r"otherwise|then)\b|\s(?:but|so|because|though|although|whereas)"
                           r"\s|[,:]\s*(?=(?:i|we)\b)", re.IGNORECASE)
_THEN = re.compile(r"\b(?:by|before|until|till)\s+then\b|\bthen\W*$|\b(?:that|the\s+same)\s+"
                   r"(?:day|morning|afternoon|evening|night|week)\b", re.IGNORECASE)


MAX_SENTENCE = 1000  # characters: a longer run without a full stop is no passing remark
LOOK_BACK = 300  # characters before a sentence searched for the date it refers back to


def _sentence(unit: Unit, start: int, sentence: str, day: date, found: Found,
              previous: Unit | None = None) -> None:
    if len(sentence) > MAX_SENTENCE:
        return
    line = unit.line_at(start)
    ctx = _Context(unit, line, sentence, day, _links_in(unit, start, start + len(sentence)),
                   start, previous)
    item = _ACTION_ITEM.match(sentence)
    if item:
        who = (item.group("who") or item.group("who2") or "").strip().lower()
        if who and who not in ("me", "i", "myself", "mine", "self"):
            ctx.reject(found, f"someone else's action (“{who}”)")
            return
        rest = sentence[item.end():]
        _emit(ctx, found, _Said(rest, "obligation", 0.8, ["an action item"], item.end()))
        return
    todo = _TODO.match(sentence)
    if todo:
        rest = todo.group("rest")
        _emit(ctx, found, _Said(rest, "todo", 0.9, ["a TODO"], len(sentence) - len(rest)))
        return
    if sentence.rstrip().endswith("?") or re.search(r"\b(?:whether|if)\s+(?:i|we)\s+(?:should|"
                                                   r"need|have|must|ought)\b", sentence, re.I):
        if _first_cue(sentence) or _imperative(sentence):
            found.rejected.append(Rejected(line, sentence, "a question"))
        return
    aside = _aside(unit, sentence)
    if aside:  # recorded where it could have been read as one: a listed step, a cue
        if unit.list_item or _first_cue(sentence) or _CONDITION_LEAD.match(sentence) or \
                _imperative(sentence, listed=True):
            ctx.reject(found, aside)
        return
    lead = _CONDITION_LEAD.match(sentence)
    if lead and _conditional(ctx, lead, found):
        return
    cue = _first_cue(sentence)
    if cue is not None:
        while cue is not None and not _cued(ctx, cue, found):
            # someone else's: a later clause may still be the writer's own ("Someone has
            # to be in, and it has to be me")
            cue = _first_cue(sentence, cue[0].end())
        return
    near = _near_miss(sentence)
    if near:
        ctx.reject(found, near)
        return
    plan = _MY_PLAN.search(sentence)
    if plan and any(d.day > day for d in _dates(sentence, day)):
        # "I'm seeing the GP on the 12th": a plan, when its day is still to come
        _cued(ctx, (plan, "intention", 0.55), found)
        return
    _instruction(ctx, found)


# A section that records what was done ("一日目 — what we did today") or sets standing rules
# ("Rules I set myself"); a sentence that states a habit ("Always check the tyres").
_NARRATION = re.compile(r"\bwhat\s+(?:we|i)\s+did\b|\b(?:we|i)\s+did\b|\bdone\s+(?:today|so\s+"
                        r"far|this\s+week)\b|\bdiary\b|\bwhat\s+happened\b|\bhow\s+it\s+went\b",
                        re.IGNORECASE)
_RULES = re.compile(r"\b(?:rules?|principles?|polic(?:y|ies)|habits?|guidelines?|"
                    r"standing\s+orders?|ground\s+rules)\b", re.IGNORECASE)
_HABIT = re.compile(r"^\W*(?:always|every\s+time|each\s+time|as\s+a\s+(?:rule|habit))\b|"
                    r"\bto\s+always\b", re.IGNORECASE)


def _aside(unit: Unit, sentence: str) -> str | None:
    """Why a sentence is no commitment whatever its wording: it narrates what was done,
    or states a standing rule or habit (a term for every case, not a thing to do once)."""
    section = (unit.listed_under or "").strip()
    if unit.task is None and _NARRATION.search(section):
        return f"past narration (under “{section[:40]}”)"
    if unit.task is None and _RULES.search(section):
        return f"a standing rule (under “{section[:40]}”)"
    habit = _HABIT.search(sentence)
    if habit:
        return f"a standing rule (“{habit.group(0).strip(' ,')}”)"
    return None


_NEAR_MISSES = (
    ("past", re.compile(r"(?:^|\b(?:i|we)\s+)(?:had|needed|wanted|meant|was\s+going|"
                        r"were\s+going|was\s+supposed|were\s+supposed|was\s+meant|used)\s+to\b",
                        re.IGNORECASE)),
    ("negated", re.compile(r"\b(?:i'm|i’m|i\s+am|we're|we’re|we\s+are)?\s*(?:not|never)\s+"
                           r"(?:going\s+to|gonna)\b|"
                           r"\b(?:i|we)\s+(?:won't|won’t|will\s+not|shan't)\b", re.IGNORECASE)),
    ("hypothetical", re.compile(r"\b(?:i|we)(?:'d|’d|\s+would|\s+could|\s+might)\b|"
                                r"\bit(?:'d|’d|\s+would)\s+be\b", re.IGNORECASE)),
)


def _near_miss(sentence: str) -> str | None:
    """Why a sentence with no cue still reads like a commitment at first sight: said in
    the past, negated or as a hypothetical (kept as the reason it was set aside)."""
    for reason, pattern in _NEAR_MISSES:
        if pattern.search(sentence):
            return reason
    return None


@dataclass
class _Context:
    """The sentence being read, and what the candidate made from it needs to know."""

    unit: Unit
    line: int
    sentence: str
    day: date
    links: tuple[str, ...]
    start: int = 0  # where the sentence starts in the block
    previous: Unit | None = None  # the block before, for "before then"

    def in_previous_block(self) -> list[DateMention]:
        """Dates at the end of the block just before (the list item above, say)."""
        if self.previous is None or self.unit.line - self.previous.line > 3:
            return []
        text = self.previous.text[-LOOK_BACK:]
        return [d for d in _dates(text, self.day) if not d.past]

    @property
    def earlier(self) -> list[DateMention]:
        """Dates in the same block shortly before this sentence (offsets in the block)."""
        base = max(0, self.start - LOOK_BACK)
        return [replace(d, start=d.start + base, end=d.end + base)
                for d in _dates(self.unit.text[base:self.start], self.day)]

    def later_in_sentence(self) -> list[DateMention]:
        """Future dates in the rest of the sentence when this piece of it ends at a
        semicolon or a dash ("… from May; first meeting is 6 May."), offsets past its end."""
        end = self.start + len(self.sentence)
        tail = self.unit.text[end:]
        if not re.match(r"\s*(?:[;—–]|\s-\s)", tail):
            return []
        stop = re.search(r"[.!?](?:\s|$)|\n", tail)
        tail = tail[:stop.end() if stop else len(tail)]
        shift = end - self.start
        return [replace(d, start=d.start + shift, end=d.end + shift)
                for d in _dates(tail, self.day) if not d.past]

    def earlier_sentence_is_last(self, mention: DateMention) -> bool:
        """Whether `mention` is in the sentence just before this one (same block)."""
        gap = self.unit.text[mention.end:self.start]
        return len(re.findall(r"[.!?;\n](?:\s|$)", gap)) <= 1

    def reject(self, found: Found, reason: str) -> None:
        found.rejected.append(Rejected(self.line, self.sentence, reason))


def _first_cue(sentence: str, pos: int = 0):
    """The earliest cue in the sentence (from `pos`); of two starting together, the first
    listed. None when there is none."""
    best = None
    for pattern, family, base in _CUE_RES:
        m = pattern.search(sentence, pos)
        if m and (best is None or m.start() < best[0].start()):
            best = (m, family, base)
    if best is None and re.match(rf"^\s*(?:(?:but|and|so)\s+)?(?:{_CONJ})\b", sentence, re.I):
        m = _PROGRESSIVE.search(sentence)
        if m:
            best = (m, "intention", 0.7)
    return best


def _cued(ctx: _Context, cue, found: Found) -> bool:
    """Make a candidate from the sentence at its cue; False when the cue is someone
    else's (then a later cue may be tried), True otherwise."""
    m, family, base = cue
    sentence = ctx.sentence
    head, rest = sentence[:m.start()], sentence[m.end():]
    clause_start = _clause_start(head)
    subject = head[clause_start:]
    condition = None
    cond = _CONDITION_HEAD.search(subject)
    if cond and family not in ("promise", "request"):
        condition = _as_condition(cond.group("conj"), _cut_subject(cond.group("cond")))
        subject = subject[cond.end("cond"):] if condition else subject
    reason = _not_a_commitment(subject.lower(), m.group(0), rest, family)
    if reason:
        ctx.reject(found, reason)
        return True
    if family != "reminder":
        reason = _not_mine(subject, m.group(0), rest, family)
        if reason:
            ctx.reject(found, reason)
            return False
    why = [f"“{' '.join(m.group(0).split())}”"]
    confidence = base
    person = "i" if family in ("promise", "request", "reminder", *_WHOLE) \
        else _person(subject, m.group(0))
    if person == "you":
        confidence -= 0.1 if "should" not in m.group(0).lower() else 0.15
        why.append("addressed to “you”")
    elif person == "thing":
        confidence -= 0.15
        why.append("about a thing, not a person")
    if _HEDGES.search(sentence):
        confidence -= 0.15
        why.append("hedged")
    if family == "obligation" and (_REPORTED.search(head[-40:]) or person == "thing" and
                                   re.search(r"\b(?:says?|said|told\s+me)\b", head)):
        confidence -= 0.2
        why.append("someone else's say-so")
    if _NOT_MY_JOB.search(sentence[m.end():]):
        ctx.reject(found, "someone else's job")
        return True
    if condition:
        why.append(f"on a condition: “{cond.group('conj').lower()} {cond.group('cond')}”")
        confidence += 0.05
    thing = f"{_noun_phrase(subject)} {' '.join(m.group(0).split())}" if person == "thing" \
        else ""
    if _DONT.match(m.group(0)):
        _prohibition(ctx, found, m, confidence, why, clause_start)
        return True
    if family in _WHOLE:  # "Dentist moved my appointment to the 8th": the sentence is it
        _emit(ctx, found, _Said(sentence, family, confidence, why, 0, needs_date=True))
        return True
    _emit(ctx, found, _Said(rest, family, confidence, why, m.end(), clause_start=clause_start,
                           condition=condition, subject=thing,
                           promisee=_promisee(m.group(0)) if family == "promise" else None))
    return True


_DONT = re.compile(r"\s*(?:don'?t|don’t|do\s+not)\b(?!\s+forget)", re.IGNORECASE)


def _prohibition(ctx: _Context, found: Found, m: re.Match, confidence: float,
                 why: list[str], clause_start: int) -> None:
    """"Don't eat beforehand" (the day of a blood test): a thing not to do is a
    commitment only for a day or an occasion, and it keeps its "don't" ("Don't repeat
    that", a lesson, is none, and never becomes "Repeat that")."""
    before = len(found.candidates)
    _emit(ctx, found, _Said(ctx.sentence[m.start():], "reminder", confidence, why, m.start(),
                           clause_start=clause_start))
    made = found.candidates[before:]
    if not made or made[-1].due is not None or made[-1].condition is not None:
        return
    earlier = [d for d in ctx.earlier if not d.past]
    if _OCCASION.search(ctx.sentence) and earlier:
        start, due = due_window(earlier[-1])  # "Blood test on Tuesday. Don't eat beforehand."
        found.candidates[-1] = replace(made[-1], due=due, start=start,
                                       date_text=earlier[-1].text,
                                       why=(*made[-1].why, f"“{earlier[-1].text}” before it: "
                                            "the occasion"))
        return
    found.candidates.pop()
    ctx.reject(found, "negated: a thing not to do, for no day or occasion")


_OCCASION = re.compile(r"\b(?:beforehand|before\s+it|afterwards|this\s+time|that\s+day|then)\b",
                       re.IGNORECASE)


_PROMISEE = re.compile(r"(?:promised|told|assured|reassured)\s+(?P<name>[A-Z][\w'’-]+)\s", re.I)


def _promisee(cue: str) -> str | None:
    who = _PROMISEE.search(cue)
    name = who.group("name") if who else None
    return name if name and name[0].isupper() and name not in ("I", "I'd", "I’d") else None


def _name_the_promisee(action: str, name: str) -> str:
    """"Promised Ana I'd send her the slides" → "Send Ana the slides": the ledger line is
    read on its own, away from the sentence that said who "her" is."""
    def swap(m: re.Match) -> str:
        word, after = m.group(1), m.group(2)
        possessive = word.lower() == "her" and not re.match(
            r"(?:the|a|an|my|some|this|that|these|those|back|up|round|over|in|on|out|"
            r"off|to|about|\W|$)", after, re.IGNORECASE)
        return (f"{name}'s" if possessive else name) + (" " + after if after else "")

    return re.sub(r"\b(her|him|them)\b\s*(\S*)", swap, action, count=1).strip()


_WHOLE = ("appointment", "deadline")  # offered only with a date, as the whole sentence


def _clause_start(head: str) -> int:
    """Where the clause holding the cue begins within `head` (the text before the cue)."""
    start = 0
    for m in _CLAUSE_BREAK.finditer(head):
        start = m.end()
    return start


def _cut_subject(cond: str) -> str:
    """"their builders are back on site I" → the condition without the cue's subject."""
    return re.sub(r"\s*,?\s*\b(?:i|we|you)\s*$", "", cond, flags=re.IGNORECASE).strip()


def _as_condition(conj: str, cond: str) -> str | None:
    conj = " ".join(conj.lower().split())
    cond = cond.split(",")[0].strip(" .;:!")
    if not cond or len(cond.split()) < 2 and conj in _BARE_CONJ or re.fullmatch(
            r"(?:then|that|that\s+(?:day|time|morning|evening)|now|so)", cond, re.IGNORECASE):
        return None
    return cond if conj in _BARE_CONJ else f"{conj} {cond}"


def _noun_phrase(subject: str) -> str:
    """The thing an impersonal obligation is about: "so the application" → "the application"."""
    m = re.search(r"\b((?:the|my|our|this|that|these|those|its|a|an|it)\b[^.;:!?]*)$",
                  subject.strip(), re.IGNORECASE)
    return (m.group(1) if m else subject).strip(" ,")


def _person(subject: str, cue: str) -> str:
    words = re.findall(r"[\w'’-]+", subject.lower())
    cue_words = cue.lower().split()
    first = cue_words[0] if cue_words else ""
    if first in ("i", "we", "i'll", "i’ll", "we'll", "we’ll", "i'm", "i’m", "let's", "let’s",
                 "we're", "we’re", "i've", "i’ve", "am", "i'd", "i’d", "we'd", "we’d"):
        return "i"
    if not words:
        return "i"
    last = words[-1]
    if last in ("i", "we", "me", "myself", "also", "really", "still", "just", "definitely"):
        return "i"
    if last == "you":
        return "you"
    return "thing"


_COMMON_START = frozenset("""it this that the these those there here my our your everything
something nothing all car bike house flat boiler form application payment invoice bill rent
tax return report passport licence license visa permit insurance""".split())


def _not_mine(subject: str, cue: str, rest: str, family: str) -> str | None:
    """Someone else's obligation or promise: a person, not the writer, is its subject."""
    words = _subject_words(subject)
    last = words[-1] if words else ""
    if family in _WHOLE:
        return None
    if family in ("promise", "request") and re.match(r"\s*(?:i|we)\b", cue, re.I) is None:
        if re.match(r"(?:promised|told|swore|assured|reassured|agreed|offered|volunteered|"
                    r"committed|signed|pledged|said|confirmed)", cue.strip(), re.I):
            if last and last.lower() not in ("i", "we", "you") and (
                    last.lower() in _HUMAN or last[0].isupper()):
                return f"someone else's promise (“{last}”)"
        return None
    cue_first = cue.lower().split()[0] if cue.split() else ""
    if cue_first in ("i", "we", "i'll", "i’ll", "we'll", "we’ll", "let's", "let’s", "i'm",
                     "i’m", "we're", "we’re", "i'd", "i’d", "we'd", "we’d"):
        return None
    if not last or last.lower() in ("i", "we", "me", "you", "myself"):
        return None
    human = next((w for w in words if w.lower() in _HUMAN or w.lower().rstrip("s") in _HUMAN),
                 None)
    if human:
        return f"someone else's (“{human}”)"
    initial = subject.strip().split()[0].strip(",") == last if subject.strip() else False
    if last[0].isupper() and (not initial or last.lower() not in _COMMON_START):
        return f"someone else's (“{last}”)"
    return None


def _subject_words(subject: str) -> list[str]:
    """The words of the subject: after its last personal pronoun, without adverbs and
    possessive or contracted endings ("He also" → ["He"], "Kids these days" → all three)."""
    pronouns = list(_PRONOUN.finditer(subject))
    if pronouns:
        subject = subject[pronouns[-1].start():]
    reported = list(_REPORTING.finditer(subject))
    if reported:  # "Mechanic says the brake pads": the pads are the subject
        subject = subject[reported[-1].end():]
    words = [re.sub(r"['’](?:ve|s|re|ll|d)$", "", w) for w in re.findall(r"[\w'’-]+", subject)]
    return [w for w in words if w and w.lower() not in _ADVERBS]


_REPORTING = re.compile(r"\b(?:says?|said|thinks?|reckons?|told\s+(?:me|us)|mentioned|"
                        r"reminded\s+me|warned(?:\s+me)?|explained)\b(?:\s+that)?",
                        re.IGNORECASE)
_ADVERBS = frozenset({"also", "really", "still", "just", "definitely", "probably",
                      "absolutely", "seriously", "urgently", "then", "now", "so", "and",
                      "def", "defo", "first", "actually", "finally", "honestly", "totally",
                      "obviously", "certainly", "surely", "somehow", "too", "but", "or"})


def _not_a_commitment(subject: str, cue: str, rest: str, family: str) -> str | None:
    """Negated, hypothetical, past or an opinion: said, but nothing to act on."""
    cue_l = " ".join(cue.lower().split())
    pronouns = list(_PRONOUN.finditer(subject))
    between = subject[pronouns[-1].start():] if pronouns else subject[-25:]
    window = f"{between} {cue_l}"
    if family != "reminder" and (_NEGATION.search(window) or re.match(
            r"\s*(?:(?:probably|really|just|definitely|honestly|ever|also)\s+)*(?:never|not)\b",
            rest, re.I)):
        return "negated"
    if _PAST_CUE.search(window) or re.search(r"\b(?:had|needed|wanted|was|were)\s*$", subject):
        return "past"
    if _HYPOTHETICAL.search(subject[-40:]) or (
            family != "promise" and re.search(r"\b(?:would|could|might)\b", cue_l)):
        return "hypothetical"
    if _MAYBE.search(window) or _MAYBE.match(rest.strip()) or _SOMEDAY.search(rest):
        return "hypothetical"
    if "should" in cue_l and _REPORTED.search(subject + " " + cue_l.split("should")[0]):
        return "someone else's advice"
    if _EVERYONE_SAYS.search(subject):
        return "someone else's advice"
    if "should" in cue_l and re.match(r"\s*(?:have|'ve)\s+\w+", rest, re.I):
        return "past"
    if ("should" in cue_l or "must" in cue_l) and _EPISTEMIC.match(rest.strip()) \
            and not _PARTICIPLE.match(rest):
        return "an opinion or a guess"
    if family == "obligation" and re.match(r"\s*be\b", rest, re.I) and not (
            _PARTICIPLE.match(rest) or re.match(r"\s*be\s+me\b", rest, re.I)):
        return "an opinion or a guess"
    if family in ("intention", "obligation", "reminder") and _NOT_AN_ACTION.match(
            _FILLER.sub("", rest.strip())):
        return "a figure of speech"
    return None


def _conditional(ctx: _Context, lead: re.Match, found: Found) -> bool:
    """"When X, Y" / "If X, Y": a commitment when Y is one (an instruction or an intention)
    and X is not a hypothetical. False when the sentence is not of that shape after all."""
    main = lead.group("main")
    cond = lead.group("cond").strip()
    conj = " ".join(lead.group("conj").lower().split())
    main_cue = _first_cue(main) or _progressive(main)
    if _HYPOTHETICAL.search(cond) or re.search(r"\b(?:would|could|might|'d|’d)\b", main[:40],
                                              re.I):
        if main_cue or _imperative(main):
            ctx.reject(found, "hypothetical")
            return True
        return False
    cond_dates = find_dates(cond, ctx.day)
    if cond_dates and _covers(cond, cond_dates[0]):
        return False  # "By Friday, send …": a date, not a condition
    main_offset = lead.start("main")
    if main_cue is not None and main_cue[0].start() < 30:
        m, family, base = main_cue
        subject = main[:m.start()]
        reason = (_not_mine(subject, m.group(0), main[m.end():], family)
                  or _not_a_commitment(subject.lower(), m.group(0), main[m.end():], family))
        if reason:
            ctx.reject(found, reason)
            return True
        rest, offset = main[m.end():], main_offset + m.end()
        why, confidence = [f"“{' '.join(m.group(0).split())}”"], base + 0.05
    elif _imperative(main):
        rest, offset, why, confidence = main, main_offset, ["an instruction"], 0.75
    else:
        return False
    condition = cond if conj in _BARE_CONJ else f"{conj} {cond}"
    why.append(f"on a condition: “{conj} {cond}”")
    _emit(ctx, found, _Said(rest, "conditional", confidence, why, offset,
                           clause_start=main_offset, condition=condition, dates_from=0))
    return True


def _progressive(text: str):
    m = _PROGRESSIVE.match(text)
    return (m, "intention", 0.7) if m else None


def _covers(text: str, mention: DateMention) -> bool:
    rest = (text[:mention.start] + text[mention.end:]).strip(" ,.").lower()
    return rest in ("", "the", "by", "on", "before", "after", "until", "in", "by the end of")


def _imperative(text: str, *, listed: bool = False) -> bool:
    m = re.match(r"^\W*(?:(?:please|also|then|and|just|definitely|still|so)\s+)?"
                 r"([A-Za-z]+)(?![-'’\w])", text, re.IGNORECASE)
    if not m:
        return False
    word = m.group(1).lower()
    return word in _VERBS or listed and word in _AMBIGUOUS_VERBS


def _gerund(text: str) -> bool:
    """"Sending it first thing tomorrow": a plan, written without its subject."""
    m = re.match(r"^\W*([A-Za-z]+)ing\b", text)
    if not m:
        return False
    stem = m.group(1).lower()
    if stem in ("look", "think", "feel", "hop", "wonder", "try", "see", "go", "be", "sitt",
                "watch", "read"):
        return False
    return any(v in _VERBS for v in (stem, stem + "e", stem[:-1] if len(stem) > 3
                                     and stem[-1] == stem[-2] else stem))


_LABEL = re.compile(r"^\s*[\w'’ ]{1,30}?\s*(?::|\s[—–-])\s+(?=[a-z])", re.IGNORECASE)


_CLAUSE_STARTS = re.compile(r"(?:[,:;]|\s[—–-])\s+(?:so\s+|then\s+|and\s+)?(?=\w)")
_PLAN_LABEL = re.compile(r"^\s*(?:plan|plans|next|tomorrow|today|tonight|this\s+week(?:end)?|"
                         r"weekend|to\s*-?\s*do|errands?|tasks?|goals?|priorit(?:y|ies))"
                         r"(?:\s+for\s+[\w ]{1,20}?)?\s*[:–-]\s+(?=[a-z])", re.IGNORECASE)
_SAYS_DO = re.compile(r"\b(?:says?|said|told\s+me)\s+(?:to\s+)?(?=[a-z]+\b)", re.IGNORECASE)


def _instruction(ctx: _Context, found: Found) -> None:
    """An instruction to oneself ("Book the car in for the brakes in two weeks"): a
    commitment with a date, as an item of a to-do list, or with an exclamation mark; or
    one relayed ("the vet says get them in by the 25th") with a date."""
    sentence, unit = ctx.sentence, ctx.unit
    listed = bool(unit.list_item and _TODO_LEAD.search(unit.listed_under or ""))
    offset, relayed = 0, False
    planned = _PLAN_LABEL.match(sentence)  # "Plan for tomorrow: call the bank"
    if planned:
        offset, listed = planned.end(), True
    elif unit.list_item and not _imperative(sentence, listed=listed):
        label = _LABEL.match(sentence)  # "pharmacy: pick up the prescription"
        offset = label.end() if label else 0
    gerund = False
    if planned and not _imperative(sentence[offset:], listed=True):
        return
    if not _imperative(sentence[offset:], listed=listed):
        says = _SAYS_DO.search(sentence)
        starts = list(_CLAUSE_STARTS.finditer(sentence)) if unit.list_item else []
        tail = starts[-1] if starts else None  # the last clause's start
        if says and _imperative(sentence[says.end():]):
            offset, relayed = says.end(), True
        elif tail and _imperative(sentence[tail.end():], listed=listed):
            offset = tail.end()  # "Tom's birthday next Sat, get a card"
        elif _gerund(sentence):
            gerund = True
        else:
            return
    dates = [d for d in _dates(sentence, ctx.day) if not d.past]
    condition = _CONDITION_TAIL.search(sentence[offset:])
    if dates:
        confidence, why = 0.65, ["an instruction with a date"]
    elif relayed or gerund:
        return
    elif planned:
        confidence, why = 0.7, [f"under “{planned.group(0).strip(' :–-')}”"]
    elif listed:
        confidence, why = 0.7, [f"listed under “{unit.listed_under.strip()[:40]}”"]
    elif condition:
        confidence, why = 0.6, ["an instruction on a condition"]
    elif sentence.rstrip().endswith("!") or _acts_on_something(sentence[offset:]):
        confidence = 0.55 if unit.list_item or sentence.rstrip().endswith("!") else 0.5
        why = ["an instruction"]
    elif unit.list_item:
        confidence, why = 0.45, ["an instruction in a list"]
    else:
        confidence, why = 0.35, ["an instruction"]
    if relayed:
        why.append("relayed")
    _emit(ctx, found, _Said(sentence[offset:], "instruction", confidence, why, offset,
                           clause_start=offset, dates_from=0))


_OBJECT = re.compile(r"^\W*(?:(?:please|also|then|and|just|definitely|still|so)\s+)?[A-Za-z]+"
                     r"(?:\s+(?:up|back|out|in|off|round|over|down|on|through|away))?\s+"
                     r"(?:the|a|an|my|his|her|our|their|your|some|this|that|these|those|it|them|"
                     r"him|me|us|all|both|any|[A-Z][a-z]+\b(?!\s+(?:club|group|with|from)))\b")


def _acts_on_something(text: str) -> bool:
    """"Call the bank", "Email Tom", "Pick up the keys": a verb with its object, not a
    noun that happens to be one ("Book club", "Call with Dad", "Water was perfect")."""
    return bool(_OBJECT.match(text))


_TODO_LEAD = re.compile(r"\b(?:to\s*-?\s*do|todo|need\s+to|must|don'?t\s+forget|remember|"
                        r"next\s+steps?|actions?|action\s+items|tasks|errands|jobs|"
                        r"have\s+to|plan|this\s+week|tomorrow|today)\b", re.IGNORECASE)


# -------------------------------------------------------------------------- the result


@dataclass
class _Said:
    """A sentence read as a commitment, as its reader found it: the text from the action
    on (`rest`, at `rest_offset` in the sentence), its family, how sure the reading is
    and why. `_emit` settles its date, condition and action; its steps add to `why`,
    `confidence` and `condition` as they find more."""

    rest: str
    family: str
    confidence: float
    why: list[str]
    rest_offset: int
    clause_start: int = 0  # where the action's clause starts in the sentence
    condition: str | None = None
    subject: str = ""  # put before the action ("the boiler needs …": about a thing)
    dates_from: int | None = None  # where its own dates may start (default: clause_start)
    promisee: str | None = None
    needs_date: bool = False  # the whole sentence is the action: a candidate only if dated

    @property
    def own_dates_from(self) -> int:
        return self.clause_start if self.dates_from is None else self.dates_from


@dataclass
class _When:
    """The date a candidate is due by, as `_emit` settles it."""

    mention: DateMention | None
    borrowed: bool = False  # said in the sentence (or the block) before
    ahead: bool = False  # due the day before the date ("before then")


def _emit(ctx: _Context, found: Found, said: _Said) -> None:
    """Turn a recognised sentence into a candidate: its date, condition and action."""
    sentence = ctx.sentence
    clause_end = len(sentence) if said.needs_date else _clause_end(sentence, said.rest_offset)
    mentions = _dates(sentence, ctx.day)
    action = _condition_tail(said, said.rest[: max(0, clause_end - said.rest_offset)], ctx.day)
    when, action = _when(ctx, said, mentions, clause_end, action)
    if when.mention is not None and when.mention.past:
        if not any(not d.past for d in mentions):
            ctx.reject(found, f"past (“{when.mention.text}”)")
            return
        when.mention = None
    if said.needs_date and (when.mention is None or when.borrowed):
        return
    if when.mention in mentions and _before_event(sentence[:when.mention.start], when.mention):
        when.ahead = True
    start, due = (None, None) if when.mention is None else due_window(when.mention, when.ahead)
    action = _say_when(said, when, action, start, due)
    if _already_done(sentence, said, clause_end):
        ctx.reject(found, "already done")
        return
    action = _clean_action(f"{said.subject} {action}" if said.subject else action)
    if said.promisee:
        action = _name_the_promisee(action, said.promisee)
    if not action:
        return
    if len(action.split()) < 2:
        said.confidence -= 0.1
    confidence = round(max(0.05, min(0.95, said.confidence)), 2)
    found.candidates.append(Candidate(
        _key(sentence), ctx.line, sentence, action, _clean_condition(said.condition),
        due, when.mention.text if when.mention else None, start, said.family, confidence,
        tuple(said.why), ctx.links))


def _condition_tail(said: _Said, action: str, day: date) -> str:
    """The action without a condition that ends it ("… when the quote arrives"), which
    becomes the candidate's condition unless its reader found one already."""
    if said.condition is not None:
        return action
    tail = _CONDITION_TAIL.search(action)
    if tail and not _date_only(tail.group("cond"), day):
        said.condition = _as_condition(tail.group("conj"), tail.group("cond"))
        if said.condition:
            action = action[:tail.start()]
            said.why.append(f"on a condition: “{' '.join(tail.group(0).split()).strip(' ,.;')}”")
            said.confidence += 0.05
    return action


def _when(ctx: _Context, said: _Said, mentions: list[DateMention], clause_end: int,
          action: str) -> tuple[_When, str]:
    """The date the action is due by, and the action without the words that took it
    elsewhere: a date in its clause; for "before then", the nearest date said before; a
    vague one gives way to an exact one elsewhere in the sentence; else the date of the
    sentence just before."""
    dates_from = said.own_dates_from
    when = _When(_pick_date(mentions, dates_from, clause_end))
    then = _THEN.search(ctx.sentence[said.clause_start:clause_end]) if when.mention is None \
        else None
    if then:
        when.ahead = then.group(0).lower().startswith("before")
        # "…on the 27th, so I need to get it in before then": the nearest date said before
        same = [d for d in mentions if d.start < said.rest_offset and not d.past]
        before = [d for d in ctx.earlier if not d.past] or ctx.in_previous_block()
        when.mention = min(same, key=lambda d: d.day) if same else (before[-1] if before
                                                                    else None)
        when.borrowed = not same and when.mention is not None
        if when.mention is not None:
            action = _THEN.sub("", action)
    if not when.borrowed and (when.mention is None or when.mention.vague):
        other = _in_other_clause(mentions, dates_from, clause_end, when.mention,
                                 ctx.later_in_sentence())
        if other is not None:
            if when.mention is not None:  # "from May" gives way to "6 May": not the action's
                action = _remove_date(action, when.mention, said.rest_offset)
            when.mention = other
            said.why.append(f"“{other.text}” elsewhere in the sentence")
    if when.mention is None and not any(dates_from <= d.start < clause_end for d in mentions):
        before = [d for d in ctx.earlier if not d.past]
        if before and ctx.earlier_sentence_is_last(before[-1]):
            when.mention, when.borrowed = before[-1], True
    return when, action


def _say_when(said: _Said, when: _When, action: str, start: date | None,
              due: date | None) -> str:
    """Why the candidate is due when it is (a reason, and more confidence for a date of
    its own); the action without the date's words when they were in it."""
    if when.mention is not None and when.borrowed:
        said.why.append(f"“{when.mention.text}” in the sentence before, "
                        + _reading(when.mention, start, due))
    elif said.needs_date:
        said.why.append(_reading(when.mention, start, due))
        said.confidence += 0.1
    elif when.mention is not None:
        action = _remove_date(action, when.mention, said.rest_offset)
        said.why.append(_reading(when.mention, start, due))
        said.confidence += 0.1
    return action


def _already_done(sentence: str, said: _Said, clause_end: int) -> bool:
    """Whether the sentence says the thing is done ("already", "… and I did", "✅")."""
    return bool(_DONE.search(sentence[clause_end:])
                or _DONE.search(sentence[said.clause_start:said.rest_offset])
                or _DID.search(sentence[said.rest_offset:]) or _MARKED_DONE.search(sentence))


_CLAUSE_END = re.compile(r",\s*(?:but|though|although|otherwise|whereas|so\s+that|which|"
                         r"there|since|because|as|and\s+(?:he|she|they|it)\b)\b|"
                         r"\s(?:but|whereas)\s|\.\s|[;!?]|\s[—–-]\s(?!\s*(?:by\s+|before\s+|"
                         r"on\s+)?(?:the\s+)?\w+(?:\s+\w+)?\s*(?:latest|at\s+the\s+latest)?\W*$)",
                         re.IGNORECASE)


def _clause_end(sentence: str, start: int) -> int:
    """The end of the clause that begins at `start`: a ", but", "; " or the sentence end
    (a dash too, unless a date alone follows it: "call the plumber — Thursday latest")."""
    m = _CLAUSE_END.search(sentence, start)
    return m.start() if m else len(sentence)


_THAT_MONTH = frozenset({"from", "since", "of"})


def _dates(text: str, day: date) -> list[DateMention]:
    """The dates in `text` a commitment can be due on: a month named with "from", "since"
    or "of" that has already gone by this year ("the photos from June", written in
    August) is the past it speaks of, never next year's window."""
    return [d for d in find_dates(text, day) if not _gone_month(d, day)]


def _gone_month(mention: DateMention, day: date) -> bool:
    whole_month = (mention.first.day == 1 and mention.first.month == mention.last.month
                   and (mention.last + timedelta(days=1)).day == 1)
    return (whole_month and mention.prep in _THAT_MONTH and mention.first.year > day.year
            and mention.first.month < day.month)


def _pick_date(mentions: list[DateMention], start: int, end: int) -> DateMention | None:
    """The date a commitment is due: in its clause, a precise day before a vaguer period
    ("next month, on the 3rd"), then a deadline ("by", "before") first."""
    inside = [d for d in mentions if start <= d.start < end]
    if not inside:
        return None
    future = [d for d in inside if not d.past] or inside
    future = [d for d in future if not d.vague] or future
    deadlines = [d for d in future if d.prep in ("by", "before", "until", "till", "due",
                                                 "no later than", "within")]
    named = [d for d in future if d.prep in ("on", "for")]
    return (deadlines or named or future)[0]


def _in_other_clause(mentions: list[DateMention], start: int, end: int,
                     own: DateMention | None, later: list[DateMention]) -> DateMention | None:
    """A date in another clause of the sentence ("I'll write the plan when I'm back — Priya
    wants it by 29 May"): any, when the commitment's own clause has none; else a precise
    day inside the vague period it names ("from May; first meeting is 6 May")."""
    others = [d for d in mentions if not start <= d.start < end and not d.past] + later
    if own is not None:
        others = [d for d in others if not d.vague and own.first <= d.day <= own.last]
    return _pick_date(others, 0, 1 << 30)


_BEFORE_EVENT = re.compile(r"\bbefore\s+(?!then\b)(?:[^\s,;:.!?—–]+\s+){1,8}?(?:on|in)\s+$",
                           re.IGNORECASE)


def _before_event(text_before: str, mention: DateMention) -> bool:
    """"before the wedding on the 18th", "before it renews on 2 February", "before the
    trip in May": the date is the day (or the period) of the thing to be ahead of."""
    return mention.prep in ("on", "in") and _BEFORE_EVENT.search(text_before) is not None


def due_window(mention: DateMention, before: bool = False) -> tuple[date | None, date]:
    """(window start, due date) for a date a commitment is tied to. The due date is the
    last day on which doing the thing still keeps it: a period's last day ("next week":
    its Friday; "in June": 30 June); "before X" the day before X begins ("before the
    weekend": Friday; "before the wedding on the 18th", `before` set: the 17th), but
    "before the end of X" is X's end; "from"/"starting X" X's first day. A period opens
    the window at its first day (the start, when before the due)."""
    if (before or mention.prep in ("before", "ahead of")) and mention.kind != "end":
        return None, mention.first - timedelta(days=1)
    if mention.prep in ("from", "starting", "as of"):
        return None, mention.first
    if mention.prep == "after":
        return None, mention.day
    return (mention.first if mention.first < mention.last else None), mention.last


def read_window(text: str, day: date) -> tuple[date | None, date] | None:
    """A date written on its own ("next friday", "by the end of the month", "2026-08-20"),
    read against `day` as a note's dates are: (window start, due date) as `due_window`
    gives them, or None when the text is not one date."""
    text = " ".join(text.split())
    mentions = find_dates(text, day)
    if len(mentions) != 1 or not _covers(text, mentions[0]):
        return None
    return due_window(mentions[0])


def _reading(mention: DateMention, start: date | None, due: date) -> str:
    window = f" (from {start.isoformat()})" if start else ""
    return f"“{mention.text}” read as {due.isoformat()}{window}"


def _date_only(text: str, day: date) -> bool:
    mentions = find_dates(text, day)
    return bool(mentions) and _covers(text, mentions[0])


def _remove_date(action: str, mention: DateMention, rest_offset: int) -> str:
    """The action without its date words ("send the slides by Friday" → "send the slides")."""
    start, end = mention.start - rest_offset, mention.end - rest_offset
    if end <= 0 or start >= len(action):
        return action
    start = max(start, 0)
    before = re.sub(r"(?:\b(?:no\s+later\s+than|ahead\s+of|by|before|on|until|till|in|within|"
                    r"for|due|at|around|from|after)\s+(?:the\s+)?)$", "", action[:start].rstrip()
                    + " ", flags=re.IGNORECASE)
    return f"{before.rstrip()} {action[end:].lstrip()}".strip()


_FILLER = re.compile(r"^(?:also|really|definitely|still|just|then|actually|finally|please|"
                     r"seriously|totally|urgently|properly|honestly|now|first|to|that|"
                     r"need\s+to|have\s+to|have\s+got\s+to|got\s+to|must)\s+",
                     re.IGNORECASE)


def _clean_action(action: str) -> str:
    action = action.replace(_CODE_MARK, "").replace("#", "")
    action = " ".join(action.split()).strip(" ,.;:!-–—")
    previous = None
    while previous != action:
        previous = action
        action = _FILLER.sub("", action)
    action = re.sub(r"\s+(?:too|as\s+well|anyway|asap|though|then|tbh|at\s+the\s+latest)$",
                    "", action, flags=re.IGNORECASE).strip(" ,.;:!")
    action = action.replace("[", "(").replace("]", ")")
    return action[:1].upper() + action[1:]


def _clean_condition(condition: str | None) -> str | None:
    if not condition:
        return None
    condition = " ".join(condition.replace(_CODE_MARK, "").split()).strip(" ,.;:!")
    return condition.replace("[", "(").replace("]", ")") or None


def _links_in(unit: Unit, start: int, end: int) -> tuple[str, ...]:
    inside = [t for at, t in unit.links if start <= at < end]
    return tuple(dict.fromkeys(inside or [t for _, t in unit.links]))


def _key(text: str) -> str:
    return " ".join(re.findall(r"[\w']+", text.lower()))
