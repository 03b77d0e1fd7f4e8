"""Generate a hostile vault, and a manifest of what an index run should make of it.

    python scripts/torture_vault.py DIR [--short] [--fifo]

Writes DIR/vault (the vault), DIR/outside (a sibling folder holding secret.md,
which nothing may ever read) and DIR/manifest.json:

    {"vault": ..., "outside": ..., "secret": ...,
     "good": [paths that must be indexed as notes with text],
     "bad": {path: {"expect": "substring of its one warning", "why": "..."}},
     "silent": {path: "why it is skipped without a warning"}}

Every path in "bad" must get exactly one warning (a note's own problem, a walk
warning for a symlink, or a link warning for a note whose link leaves the
vault), and no other path any. Hostile content: broken YAML (tabs, unhashable
keys, python tags, impossible dates), alias bombs, huge lists, deep nesting,
non-string keys, dates in many forms, BOM, CRLF and CR files, non-UTF-8 bytes,
UTF-16, binary files named .md, empty files, a big note under the size limit and
one over it, thousands of files in one folder, 30-level nesting, names with
spaces, emoji, right-to-left text, newlines, symlink loops, symlinks and `../`
links pointing outside the vault, and parser bombs: 250 KB of `[` (which took 48 s to
read), brackets closed at the very end, backticks, unclosed `<!--` and `%%`, emphasis
markers, table pipes, lists nested 40 deep and more than the parser's limit.
`--fifo` adds a named pipe called `pipe.md` (reading it blocks forever): kept apart
because it can hang an index run.

Full mode: a 20 MB note and 10,000 files in one folder; short mode (tests): a
3 MB note (under the default max_file_bytes of 5 MB), a 6 MB one (over it) and
500 files in one folder.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from pathlib import Path

MB = 1_000_000
WORDS = ("boiler radiator invoice vendor quote estimate kitchen valve garden ferry passport "
         "plumber budget review meeting draft chapter harvest tomato ladder roof paint").split()


class Vault:
    """Writes files and remembers what the index should say about each."""

    def __init__(self, root: Path):
        self.root = root / "vault"
        self.outside = root / "outside"
        self.good: list[str] = []
        self.bad: dict[str, dict[str, str]] = {}
        self.silent: dict[str, str] = {}
        self.titles: dict[str, str] = {}

    def write(self, rel: str, data: str | bytes, *, bad: str | None = None, why: str = "",
              good: bool | None = None, title: str | None = None) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        if bad:
            self.bad[rel] = {"expect": bad, "why": why}
        if good if good is not None else not bad:
            self.good.append(rel)
        if title:
            self.titles[rel] = title
        return path

    def symlink(self, rel: str, target: str, *, bad: str, why: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, path)
        self.bad[rel] = {"expect": bad, "why": why}

    def manifest(self) -> dict:
        return {"vault": str(self.root), "outside": str(self.outside),
                "secret": str(self.outside / "secret.md"), "good": sorted(self.good),
                "bad": dict(sorted(self.bad.items())), "silent": dict(sorted(self.silent.items())),
                "titles": self.titles}


def words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def hostile_yaml(v: Vault) -> None:
    broken = "broken YAML"
    v.write("yaml/tabs.md", "---\ntitle: Tabs\n\tindented: with a tab\n---\nbody text\n",
            bad=broken, why="a tab where YAML wants spaces", good=True)
    v.write("yaml/unclosed quote.md", '---\ntitle: "never closed\n---\nbody text\n',
            bad=broken, why="unterminated quoted scalar", good=True)
    v.write("yaml/unhashable key.md", "---\n? [a, b]\n: list as a key\n---\nbody text\n",
            bad=broken, why="a sequence as a mapping key", good=True)
    v.write("yaml/python tag.md", "---\nx: !!python/object/apply:os.system ['true']\n---\nbody\n",
            bad=broken, why="python tags are not safe YAML", good=True)
    v.write("yaml/impossible date.md", "---\ndate: 2026-02-30\n---\nbody text\n",
            bad=broken, why="a timestamp that is no date", good=True)
    v.write("yaml/a list.md", "---\n- just\n- a list\n---\nbody text\n",
            bad="not a mapping", why="front matter that is a list", good=True)
    v.write("yaml/a scalar.md", "---\njust a sentence\n---\nbody text\n",
            bad="not a mapping", why="front matter that is a string", good=True)
    bomb = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i, name in enumerate("bcdefghij"):
        prev = "abcdefghij"[i]
        bomb.append(f"{name}: &{name} [{', '.join([f'*{prev}'] * 9)}]")
    v.write("yaml/alias bomb.md", "---\n" + "\n".join(bomb) + "\n---\nbody text\n",
            bad="too large", why="billion laughs: 9^10 values by aliases", good=True)
    huge = ", ".join(f"t{i}" for i in range(20_000))
    v.write("yaml/huge list.md", f"---\ntags: [{huge}]\n---\nbody text\n",
            bad="too large", why="20,000 tags", good=True)
    deep = "x: " + "{a: " * 40 + "1" + "}" * 40
    v.write("yaml/deep nesting.md", f"---\n{deep}\n---\nbody text\n",
            bad="too large", why="40-level nested mapping", good=True)
    dates = ("date: 2026-08-15\ncreated: 2026-08-15 09:30:00\nupdated: 2026-08-15T09:30:00Z\n"
             "d1: 15/08/2026\nd2: Aug 15, 2026\nd3: 20260815\nd4: 2026-08-15T09:30:00+02:00\n"
             "d5: 1e400\nd6: .nan\n")
    v.write("yaml/dates.md", f"---\ntitle: Dates\n{dates}---\nbody text\n", title="Dates")
    keys = "1: one\n2.5: two and a half\ntrue: yes\nnull: nothing\n2026-01-01: a date key\n"
    v.write("yaml/odd keys.md", f"---\n{keys}---\nbody text\n")
    v.write("yaml/unclosed fence.md", "---\ntitle: never closed\nbody text without a fence\n")
    v.write("yaml/empty front matter.md", "---\n---\nbody text\n")


def encodings(v: Vault) -> None:
    v.write("enc/bom.md", "\ufeff---\ntitle: BOM title\n---\nbody after a BOM\n",
            title="BOM title")
    v.write("enc/crlf.md", "---\r\ntitle: CRLF title\r\n---\r\nbody\r\nwith [[bom]]\r\n",
            title="CRLF title")
    v.write("enc/cr only.md", "# CR title\rbody on old Mac line endings\r", title="CR title")
    v.write("enc/latin1.md", "# Caf\xe9\n\nna\xefve text\n".encode("latin-1"),
            bad="not valid UTF-8", why="latin-1 bytes", good=True)
    v.write("enc/utf16.md", "# UTF-16 note\n\nwide text\n".encode("utf-16"),
            bad="binary", why="UTF-16 has NUL bytes: taken for binary")
    v.write("enc/image.md", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 20,
            bad="binary", why="a PNG named .md")
    v.write("enc/empty.md", b"", bad="empty file", why="zero bytes")
    v.write("enc/blank.md", b"  \n\n\t\n", bad="empty file", why="whitespace only")


def sizes(v: Vault, rng: random.Random, short: bool) -> None:
    paragraph = words(rng, 150) + " [[names/note with spaces]] #big\n\n"
    big = "# Big note\n\n" + "".join(
        (f"## Section {i}\n\n" if i % 20 == 0 else "") + paragraph for i in range(3 * MB // 1000))
    if short:
        v.write("big/three megabytes.md", big[: 3 * MB])
        v.write("big/six megabytes.md", (big * 2)[: 6 * MB],
                bad="max_file_bytes", why="6 MB, over the 5 MB default limit")
    else:
        v.write("big/twenty megabytes.md", (big * 7)[: 20 * MB],
                bad="max_file_bytes", why="20 MB, over the 5 MB default limit")


def shapes(v: Vault, rng: random.Random, short: bool) -> None:
    many = 500 if short else 10_000
    for i in range(many):
        v.write(f"many/n{i:05d}.md", f"# Many {i}\n\n{words(rng, 12)} [[n{(i * 7) % many:05d}]]\n")
    deep = "/".join(f"level{i}" for i in range(30))
    v.write(f"{deep}/bottom.md", "# Bottom\n\nThirty folders down. [[Top]]\n")
    v.write("Top.md", "# Top\n\nLinks down to [[bottom]].\n")
    v.write("names/note with spaces.md", "# Spaces\n\nA name with spaces.\n")
    v.write("names/emoji 🎉 party.md", "# 🎉 Party\n\nEmoji in the name and text 🎈.\n")
    v.write("names/עברית.md", "# שלום עולם\n\nטקסט מימין לשמאל [[note with spaces]]\n",
            title="שלום עולם")
    v.write("names/ملاحظة عربية.md", "# ملاحظة\n\nنص عربي من اليمين إلى اليسار\n")
    v.write("names/rlo \u202etxt.md", "# Right-to-left override in the name\n\ntext\n")
    v.write("names/new\nline.md", "# Newline in the name\n\ntext\n")
    v.write("names/UPPER.MD", "# Upper-case extension\n\ntext\n")
    v.write("names/dir.md/inside.md", "# Inside a folder named dir.md\n\ntext\n")
    v.write(".hidden/secret-ish.md", "# Hidden\n", good=False)
    v.silent[".hidden/secret-ish.md"] = "dot-folders are skipped"
    v.write("names/.dotfile.md", "# Dot file\n", good=False)
    v.silent["names/.dotfile.md"] = "dot-files are skipped"
    v.write("names/not markdown.txt", "text file", good=False)
    v.silent["names/not markdown.txt"] = "not .md"


def escapes(v: Vault, fifo: bool) -> None:
    v.outside.mkdir(parents=True, exist_ok=True)
    (v.outside / "secret.md").write_text("# Secret\n\nNever read this.\n")
    v.symlink("links/secret link.md", "../../outside/secret.md",
              bad="outside the vault", why="a file symlink out of the vault")
    v.symlink("links/outside dir", "../../outside",
              bad="outside the vault", why="a folder symlink out of the vault")
    v.symlink("links/absolute.md", str(v.outside / "secret.md"),
              bad="outside the vault", why="an absolute symlink out of the vault")
    v.symlink("links/loop/back", "..", bad="symlink loop", why="a folder linking to its parent")
    v.symlink("links/self.md", "self.md", bad="looping symlink", why="a symlink to itself")
    v.symlink("links/dangling.md", "nowhere.md", bad="broken", why="a symlink to nothing")
    v.write("links/loop/in loop.md", "# In the loop\n\ntext\n")
    v.write("links/md escape.md", "# Escape\n\n[secret](../../outside/secret.md)\n",
            bad="leaves the vault", why="a markdown link out of the vault", good=True)
    v.write("links/abs escape.md", f"# Absolute\n\n[secret](<{v.outside / 'secret.md'}>)\n",
            bad="leaves the vault", why="an absolute markdown link", good=True)
    v.write("links/wiki escape.md", "# Wiki escape\n\n[[../../outside/secret]] and "
            "[[../outside/secret.md]] and [file](file:///etc/passwd) and [pw](/etc/passwd)\n")
    os.makedirs(v.root / "links" / "inner", exist_ok=True)
    v.write("links/inner/real.md", "# Real\n\ntext\n")
    os.symlink("inner", v.root / "links" / "shortcut")  # inside: followed
    v.good.append("links/shortcut/real.md")
    if fifo:
        os.mkfifo(v.root / "pipe.md")
        v.bad["pipe.md"] = {"expect": "not a regular file", "why": "a named pipe blocks readers"}


def parser_bombs(v: Vault, short: bool) -> None:
    """Notes made of what once made a reader super-linear, or slow by a large constant.
    Each must index as an ordinary note, in seconds (tests/test_growth.py keeps every
    reader linear; this keeps the whole run honest at full size)."""
    size = 100_000 if short else 250_000
    v.write("bombs/brackets.md", "[" * 250_000)  # the probe's bracket bomb, at full size
    v.write("bombs/brackets closed.md", "[" * size + "](x.md)")
    v.write("bombs/images.md", "![" * (size // 2))
    v.write("bombs/backticks.md", "`" * size + "\n\n" + "```\n" * (size // 4))
    v.write("bombs/comments.md", "<!--" * (size // 4) + "\n\n" + "%% x " * (size // 5))
    v.write("bombs/emphasis.md", "**a " * (size // 4) + "\n\n" + "*a _b ==c ~~d " * (size // 14))
    v.write("bombs/tables.md", "| a |\n" * (size // 6) + "\n" + "|" * size)
    v.write("bombs/fields.md", "- [ ] task " + "[a:: " * (size // 5))
    v.write("bombs/deep list.md", "".join("  " * (i % 40) + "- item\n"
                                          for i in range(size // 60)))
    v.write("bombs/too deep list.md", "".join("  " * i + "- item\n" for i in range(80)),
            bad="nested more than", why="a list 80 deep, past markdown-it's nesting limit",
            good=True)


def ledger(v: Vault) -> None:
    lines = ["# Ledger", "",
             "- [ ] Pay the plumber 📅 2026-08-15 [[note with spaces]] ^pay",
             "- [ ] When the quote arrives, reconcile it [[../../outside/secret]]",
             "- [ ] שלם את החשבון 📅 2026-08-20 [[עברית]]",
             "- [?] An unknown status", "- [ ] Emoji 🎉 task [due:: ]"]
    v.write("Ledger.md", "\n".join(lines) + "\n", bad="unknown task status",
            why="one task line with a bad status mark", good=True)


def make(root: Path, short: bool, fifo: bool = False) -> dict:
    rng = random.Random(7)
    v = Vault(root)
    v.root.mkdir(parents=True)
    for build in (hostile_yaml, encodings):
        build(v)
    sizes(v, rng, short)
    shapes(v, rng, short)
    parser_bombs(v, short)
    escapes(v, fifo)
    ledger(v)
    manifest = v.manifest()
    (root / "manifest.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False))
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("--short", action="store_true")
    parser.add_argument("--fifo", action="store_true", help="add a named pipe called pipe.md")
    args = parser.parse_args(argv)
    if (args.dir / "vault").exists():
        parser.error(f"{args.dir / 'vault'} exists: pick an empty folder")
    manifest = make(args.dir, args.short, args.fifo)
    print(f"{len(manifest['good'])} good notes, {len(manifest['bad'])} bad files, "
          f"{len(manifest['silent'])} silently skipped: {args.dir / 'manifest.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
