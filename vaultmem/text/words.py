"""Words: how the matchers cut text into words, and which words they pass over.

Pure. One module, so a reader sees every tokenizer and stop list side by side. They are
not one list because the three questions they serve differ, and each was chosen on its
own evaluation:

* CUE_STOP (the trigger matcher, the snippet): "is this context the moment of that
  condition?" A cue word must name something; vague words ("thing", "next", "soon",
  "come"), and contractions, match any sentence, so the list is the broadest.
* SEARCH_STOP (the keyword search): a person typing "next steps" or "back pain" means
  those words, so only grammatical words go.
* IDENTITY_STOP (the ledger's fuzzy identity, new ids, the candidates' duplicate check):
  two phrasings of one commitment compare on their content, with MATCH_THRESHOLD tuned
  against this list; "when" and "then" go, as a condition is written around them.
"""

from __future__ import annotations

import re

# A word as a person reads one: letters, with one inner apostrophe ("don't", "Anna's").
WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?", re.UNICODE)
# A run of word characters, digits included: how SQLite's unicode61 tokenizer splits text.
TOKEN = re.compile(r"\w+", re.UNICODE)
# An ASCII word of lower-case letters and digits: what an id or a slug may hold.
SLUG_WORD = re.compile(r"[a-z0-9]+")

CUE_STOP = frozenset("""
a an the and or but if when whenever once then than so to of in on at by for from with
without into onto over under about after before until up down out off is are was were be
been being am do does did doing have has had having i me my mine we us our you your he him
his she her it its they them their this that these those there here what which who whom
whose how why where get gets got getting comes come coming came go goes going went
again next soon back some any all each every just still also very really can could will
would shall should may might must not no yes one ones something thing things
i'm i've i'd i'll we're we've we'd we'll you're you've you'd you'll they're they've they'd
they'll he'd he'll she'd she'll let's isn't aren't wasn't weren't don't doesn't didn't
haven't hasn't hadn't won't wouldn't can't couldn't shouldn't mustn't
""".split())  # contractions too: "I'm next at the GP" names one content word, not two

SEARCH_STOP = frozenset("""a an the and or of to in on at by for with from is are was were be been
it its this that these those i me my we our you your he she they them what which who how
do does did can could should would will just about into than then so if not no""".split())

IDENTITY_STOP = frozenset(
    "a an the to of and or in on at for by with from into my our your their its is be it "
    "this that these those when then".split()
)
