"""Query filters on the fixture vault, through the CLI: folders, tags, front matter, change
dates, ledger notes; the firing list they narrow; and the same filters from the library
and the MCP server.

Filters are structural, so the fake embedder is enough here: which notes come back never
depends on the vectors. Expected sets were read off the fixture notes' files.
"""

from __future__ import annotations

import json
import os
import shutil
from datetime import datetime
from pathlib import Path

import anyio
import pytest
from mcp import Client

from vaultmem import Vault
from vaultmem.errors import UsageError
from vaultmem.filters import Filters
from vaultmem.interfaces.cli import main
from vaultmem.interfaces.mcp_server import Service, build

from .conftest import FIXTURES, FakeEmbedder

PEOPLE = {f"people/{n}.md" for n in (
    "Greta Vogel", "Heinz Vogel", "Joanna Park", "Jonas Vogel", "José Núñez", "Léa Fontaine",
    "Priya Raman", "Ruth Lindqvist", "Sam Okafor")}
TAGGED_AREA = {  # `area/finance`, `area/health`, in front matter or inline
    "areas/finance/House insurance.md", "areas/finance/Invoices.md",
    "areas/finance/Taxes 2026.md", "areas/health/Physio.md", "areas/health/Sleep.md",
    "areas/health/running/Intervals.md", "areas/health/running/Race log.md",
    "areas/health/running/Shoes.md", "projects/Half marathon 2026.md",
    "daily/2026-08-01.md", "daily/2026-08-09.md", "people/Sam Okafor.md"}
FAMILY = {"daily/2026-08-07.md", "notes/Besuch im September.md", "notes/Gift ideas.md",
          "people/Greta Vogel.md", "people/Heinz Vogel.md", "people/Jonas Vogel.md",
          "people/Ruth Lindqvist.md"}  # front matter `tags` holds "family"
OLD = datetime(2026, 7, 1, 12, 0)


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    """The fixture vault, every file last changed on 1 July except the daily notes, each
    changed at 21:00 on its own day; indexed with the fake embedder."""
    root = tmp_path_factory.mktemp("filters") / "vault"
    shutil.copytree(FIXTURES, root, symlinks=True)
    for path in root.rglob("*.md"):
        when = OLD
        if path.parent.name == "daily":
            when = datetime.fromisoformat(path.stem).replace(hour=21)
        os.utime(path, (when.timestamp(), when.timestamp()))
    with Vault.open(root, create=True, embedder=FakeEmbedder()) as v:
        v.index(now=datetime(2026, 8, 15))
    return root


def paths(capsys, root, *args: str, text: str = "notes") -> set[str]:
    return {r["path"] for r in query(capsys, root, *args, text=text)["results"]}


def query(capsys, root, *args: str, text: str = "notes") -> dict:
    capsys.readouterr()
    code = main(["query", text, "--vault", str(root), "--now", "2026-08-16", "-k", "100",
                 "--no-log", "--json", *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def refused(capsys, root, *args: str) -> str:
    capsys.readouterr()
    code = main(["query", "notes", "--vault", str(root), "--no-log", *args])
    out, err = capsys.readouterr()
    assert code == 2 and not out
    return err


def test_in_several_folders_is_any_of_them(root, capsys, fake_model):
    got = paths(capsys, root, "--in", "people", "--in", "areas/finance")
    assert got == PEOPLE | {"areas/finance/House insurance.md", "areas/finance/Invoices.md",
                            "areas/finance/Taxes 2026.md"}


def test_not_in_leaves_folders_out(root, capsys, fake_model):
    every = paths(capsys, root)
    got = paths(capsys, root, "--not-in", "daily", "--not-in", "People")
    assert got == {p for p in every if not p.startswith(("daily/", "people/"))}
    assert len(got) == len(every) - 14 - 9


def test_a_tag_matches_the_tags_nested_under_it(root, capsys, fake_model):
    assert paths(capsys, root, "--tag", "area") == TAGGED_AREA
    assert paths(capsys, root, "--tag", "#Area/Health/") == {
        p for p in TAGGED_AREA if "finance" not in p and p != "daily/2026-08-01.md"}
    # a tag is a whole segment: "are" is not a parent of "area/health"
    assert "--tag 'are': no indexed note carries it" in refused(capsys, root, "--tag", "are")


def test_several_tags_are_all_of_them_and_minus_excludes(root, capsys, fake_model):
    assert paths(capsys, root, "--tag", "family", "--tag", "-people") == {
        "daily/2026-08-07.md", "notes/Besuch im September.md", "notes/Gift ideas.md"}
    assert paths(capsys, root, "--tag", "family", "--not-tag", "people") == {
        "daily/2026-08-07.md", "notes/Besuch im September.md", "notes/Gift ideas.md"}
    assert paths(capsys, root, "--tag", "area", "--tag", "running") == {
        "areas/health/running/Intervals.md", "areas/health/running/Race log.md",
        "areas/health/running/Shoes.md", "projects/Half marathon 2026.md"}


def test_where_matches_front_matter_values(root, capsys, fake_model):
    assert paths(capsys, root, "--where", "type=person") == PEOPLE
    assert paths(capsys, root, "--where", "TYPE = Person") == PEOPLE  # any case
    assert paths(capsys, root, "--where", "tags=family") == FAMILY  # a list: any item
    assert paths(capsys, root, "--where", "status=active", "--where", "project=house") == {
        "projects/house/Bathroom.md", "projects/house/Budget.md",
        "projects/house/Electrics.md", "projects/Kitchen renovation.md"}  # all of them


def test_where_not_equal_keeps_notes_without_the_key(root, capsys, fake_model):
    every = paths(capsys, root)
    no_person = paths(capsys, root, "--where", "type!=person")
    assert no_person == every - PEOPLE
    assert "notes/Passport.md" in no_person  # no `type` at all


def test_changed_since_and_before_read_the_file_dates(root, capsys, fake_model):
    assert paths(capsys, root, "--changed-since", "2026-08-10",
                 "--changed-before", "2026-08-13") == {
        "daily/2026-08-10.md", "daily/2026-08-11.md", "daily/2026-08-12.md"}
    assert paths(capsys, root, "--changed-since", "2026-08-14T20:00") == {
        "daily/2026-08-14.md"}
    assert not {p for p in paths(capsys, root, "--changed-before", "2026-08-01")
                if p.startswith("daily/")}


def test_ledger_notes_are_hits_only_when_asked(root, capsys, fake_model):
    assert "Ledger.md" not in paths(capsys, root, text="pay the plumber invoice")
    assert "Ledger.md" in paths(capsys, root, "--include-ledger",
                                text="pay the plumber invoice")


def test_a_filtered_query_names_only_the_commitments_of_its_notes(root, capsys, fake_model):
    every = query(capsys, root, text="paperwork")
    areas = query(capsys, root, "--in", "areas", text="paperwork")
    everything = {f["id"] for f in every["firing"]}
    assert {"c-pay-plumber-invoice", "c-top-up-tax-pot"} <= everything
    named = {f["id"] for f in areas["firing"]}
    assert "c-top-up-tax-pot" in named and "c-pay-plumber-invoice" not in named
    assert all(any(n.startswith("areas/") for n in f["notes"]) for f in areas["firing"])
    assert areas["filters"] == {"folders": ["areas"]} and every["filters"] == {}


def test_filters_never_depend_on_salience(root, capsys, fake_model):
    with Vault.open(root, embedder=FakeEmbedder()) as v:
        v.salience(now=datetime(2026, 8, 16))
    args = ("--tag", "area", "--not-in", "daily")
    heavy = query(capsys, root, *args, "--weight", "5")
    plain = query(capsys, root, *args, "--no-prospective")
    assert heavy["candidates"] == plain["candidates"] == len(TAGGED_AREA) - 2
    assert {r["path"] for r in heavy["results"]} == {r["path"] for r in plain["results"]}


@pytest.mark.parametrize("args, message", [
    (("--where", "status"), "--where 'status': write key=value or key!=value"),
    (("--tag", "  "), "--tag '  ' is not a tag"),
    (("--changed-since", "last week"), "--changed-since 'last week' is not a date"),
    # Before: "is not a date: use YYYY-MM-DD" for a value written as YYYY-MM-DD.
    (("--changed-since", "2027-02-30"), "--changed-since '2027-02-30' has the form of a date "
     "but names none (day is out of range for month): give a day that exists"),
    (("--changed-before", "2027-13-01T10:00"), "--changed-before '2027-13-01T10:00' has the "
     "form of a date but names none (month must be in 1..12)"),
    (("--changed-since", "0999-12-31"), "--changed-since 0999-12-31T00:00:00 is out of "
     "range: give a moment between 1000-01-01 and 9000-12-31"),
    (("--changed-since", "2026-08-10", "--changed-before", "2026-08-10"),
     "--changed-since 2026-08-10 00:00 is not before --changed-before 2026-08-10 00:00"),
    (("--in", "nowhere"), "--in 'nowhere': no indexed note is under it"),
    (("--in", "."), "--in '.' is the whole vault"),
    (("--not-in", "../x"), "--not-in '../x' climbs out of the vault"),
])
def test_a_bad_filter_is_one_line_and_exit_2(root, capsys, fake_model, args, message):
    err = refused(capsys, root, *args)
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_change_date_past_the_years_a_file_time_holds_is_no_internal_error(
        root, capsys, fake_model):
    """File times are stored in nanoseconds, which a 64-bit integer holds from 1677 to
    2262. Before: `--changed-since 3000-01-01` (or 1000-01-01) was "internal error:
    OverflowError"."""
    assert paths(capsys, root, "--changed-since", "3000-01-01") == set()
    assert paths(capsys, root, "--changed-since", "1000-01-01") == paths(capsys, root)
    assert paths(capsys, root, "--changed-before", "3000-01-01") == paths(capsys, root)


def test_the_library_takes_the_same_filters(root):
    with Vault.open(root, embedder=FakeEmbedder()) as v:
        result = v.query("notes", limit=100, log=False, tags=["family", "-people"],
                         where="type!=log", folders="notes")
        with pytest.raises(UsageError, match=r"unknown query option\(s\) \['prefix'\]"):
            v.query("notes", prefix="people")
        # the filters come in by their fields; before: `filters` passed the name check
        # and "abc" ended in an AttributeError (an internal error)
        with pytest.raises(UsageError, match=r"unknown query option\(s\) \['filters'\]"):
            v.query("notes", filters="abc")
    assert {h.path for h in result.results} == {"notes/Besuch im September.md",
                                                "notes/Gift ideas.md"}
    assert result.as_dict()["filters"] == {"folders": ["notes"], "tags": ["family"],
                                           "not_tags": ["people"], "where": ["type!=log"]}


def test_filters_build_normalizes_what_callers_write():
    f = Filters.build(folders=["./Projects/house/", "projects\\house"], tags=["#A/B/", "-#c"],
                      not_tags="d", where=["k != v"], changed_since="2026-08-10")
    assert f.folders == ("Projects/house/", "projects/house/")
    assert (f.tags, f.not_tags) == (("a/b",), ("c", "d"))
    assert [str(w) for w in f.where] == ["k!=v"]
    assert f.changed_since == datetime(2026, 8, 10) and f.narrows
    assert not Filters.build(include_ledger=True).narrows


def test_mcp_search_takes_the_same_filters(root):
    service = Service(root, None, watch=False, embedder=FakeEmbedder())

    async def main_():
        async with Client(build(service)) as client:
            return await client.call_tool("search", {
                "text": "notes", "limit": 100, "log": False, "tags": ["family"],
                "not_folders": ["people"], "where": ["type=log"]})

    try:
        result = anyio.run(main_)
    finally:
        assert service.close(timeout=30)
    doc = json.loads(result.content[0].text)
    assert [r["path"] for r in doc["results"]] == ["daily/2026-08-07.md"]
    assert doc["filters"] == {"not_folders": ["people"], "tags": ["family"],
                              "where": ["type=log"]}


def test_where_compares_values_as_a_person_reads_them(make_vault):
    vault = make_vault({
        "a.md": "---\nType: Person\nrating: 1.0\ndraft: true\nproject: \"[[House]]\"\n"
                "city: École\n---\nA\n",
        "b.md": "---\ntype: person\nrating: 2\ndraft: false\ntags: [x, Y]\n"
                "project: [House, garden]\ncity: ecole\n---\nB\n",
        "c.md": "---\ntitle: C\n---\nC\n"}, index_at=datetime(2026, 8, 1))

    def where(*conds):
        return {h.path for h in vault.query("a b c", where=list(conds), log=False).results}

    assert where("type=person") == {"a.md", "b.md"}  # "Type:" as well as "type:"
    assert where("rating=1") == {"a.md"} and where("rating=2.0") == {"b.md"}
    assert where("draft=true") == {"a.md"} and where("draft!=true") == {"b.md", "c.md"}
    assert where("project=house") == {"a.md", "b.md"}  # a link, a list item
    assert where("city=école") == {"a.md"} and where("city=ECOLE") == {"b.md"}
    assert where("tags=y", "type=person") == {"b.md"}
