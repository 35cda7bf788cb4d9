"""App-name resolution: a spoken name → an Android package, or an honest "not sure".

Pipeline (docs/protocol.md, app.resolve): normalize → candidates from four routes
(exact names, lexical, pinyin full and initials, an optional embedding route)
→ prior ranking (kind, successes, recency) → a typed three-state decision:

* `resolved` — a strong, device-fact match (exact alias, label, package or
  unique package segment) that clearly beats the rest; safe to auto-launch.
* `ambiguous` — plausible candidates for the agent's model to choose from.
* `unknown` — nothing credible.

A learned alias (an agent's, or one taught by observed launches) never makes a
name `resolved` to its package when that name is, exactly, another app's own
label on any device, the shipped registry's name for another app, or the
person's alias for another one: the answer is then `ambiguous`
(`named_elsewhere`), whatever its successes. Trust: user > device > learned.

A resolved package must also be installed (when the device's inventory is
known) and allowed by the launch policy. Precision comes first: a wrong
`resolved` launches the wrong app. Every answer carries its candidates with
evidence, similarity, prior and score, so a person can see why.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from rapidfuzz.distance import Indel

from recall.lexical import lexical_similarity, ngrams
from recall.pinyin_keys import pinyin_key
from recall.registry import AppRegistry
from recall.verdict import (
    DEFAULT_PRIOR,
    MAX_CANDIDATES,
    SOURCE_PRIOR,
    Candidate,
    Resolution,
    better,
    rank_key,
    verdict,
)
from store.appkb.entry import AppKbEntry, EntryKey, device_scope, normalize_term
from store.appkb.projection import Put, Remove, changes_for
from store.core.name_forms import Normalized, normalize
from store.core.names import fold_lookalikes

SEGMENT_STOP = frozenset({"com", "org", "net", "android", "example", "app", "mobile", "free", "debug", "release"})
LEXICAL_MIN = 0.35
PINYIN_MIN = 0.45
SHORTLIST = 48
POSTINGS_BUDGET = 3000  # postings read per route and query; the rarest grams are read first
AUTHORITATIVE = frozenset({"device", "registry", "user"})
"""Whose names a learned alias never overrides: a device's labels, the shipped registry's, the person's aliases."""
LEARNED = frozenset({"learned", "alias"})
"""The sources below the device's own list: aliases taught by agents or observed, and TaskWizard's `alias` kind."""

# An embedding route: normalized query → (name text, package, similarity) neighbours.
EmbeddingRoute = Callable[[str], Sequence[tuple[str, str, float]]]


@dataclass(frozen=True)
class NameRecord:
    """One name the resolver knows, with where it came from."""

    text: str
    norm: str
    alnum: str
    package: str
    source: str  # user / device / learned / alias / registry
    scope: str  # global / device:<serial>
    exact_evidence: str  # exact_alias / exact_label
    successes: int = 0
    last_success: str | None = None


def prior_of(record: NameRecord, now: datetime) -> float:
    """Trust in a name's source, nudged by how often and how lately it worked (the reference's priors)."""
    prior = SOURCE_PRIOR.get(record.source, DEFAULT_PRIOR)
    prior += min(0.04, 0.01 * math.log2(1 + record.successes))
    if record.last_success:
        try:
            last = datetime.fromisoformat(record.last_success.replace("Z", "+00:00"))
            if last.tzinfo is None:
                last = last.replace(tzinfo=UTC)
            days = max(0.0, (now - last).total_seconds() / 86400)
            prior += 0.02 * math.exp(-days / 90)
        except ValueError:
            pass
    return min(1.0, prior)


def _grams_of(text: str) -> frozenset[str]:
    """Index grams: character bigrams (so short Latin names with a typo still meet)."""
    return ngrams(text, 2)


class ResolverIndex:
    """Every name of the registry and the App-KB, indexed for the four routes."""

    def __init__(self, records: Iterable[NameRecord]) -> None:
        self.records: list[NameRecord] = []
        self._exact: dict[str, list[int]] = {}
        self._grams: dict[str, list[int]] = {}
        self._pinyin_full: dict[str, list[int]] = {}
        self._pinyin_initials: dict[str, list[int]] = {}
        self._pinyin_grams: dict[str, list[int]] = {}
        self._pinyin_of: list[str | None] = []
        self.labels: dict[str, str] = {}
        self._packages: dict[str, str] = {}
        self._segments: dict[str, set[str]] = {}
        self._alive: list[bool] = []
        self._by_key: dict[EntryKey, int] = {}
        self._keys_by_term: dict[str, set[EntryKey]] = {}
        self._by_package: dict[str, list[int]] = {}
        self._skeletons: dict[str, list[int]] = {}
        self.dead = 0
        for record in records:
            self._add(record)

    def _add(self, record: NameRecord) -> int:
        index = len(self.records)
        self.records.append(record)
        self._alive.append(True)
        # An App-KB name is exact under the store's identity of it only (`normalize_term`: what resolves
        # exactly is what `app.alias.forget` removes); the shipped registry's also without filler or punctuation.
        forms = {record.norm, record.alnum} if record.source == "registry" else {normalize_term(record.text)}
        for form in forms:
            if form:
                self._exact.setdefault(form, []).append(index)
        for gram in _grams_of(record.norm):
            self._grams.setdefault(gram, []).append(index)
        key = pinyin_key(record.alnum)
        self._pinyin_of.append(key.full if key else None)
        if key:
            self._pinyin_full.setdefault(key.full, []).append(index)
            if len(key.initials) >= 2:
                self._pinyin_initials.setdefault(key.initials, []).append(index)
            for gram in ngrams(key.full, 3):
                self._pinyin_grams.setdefault(gram, []).append(index)
        self._by_package.setdefault(record.package, []).append(index)
        if record.norm:
            self._skeletons.setdefault(fold_lookalikes(record.norm), []).append(index)
        if record.package not in self.labels or _names_label(record):
            self.labels[record.package] = record.text
        if record.package.casefold() not in self._packages:
            self._packages[record.package.casefold()] = record.package
            for segment in record.package.casefold().split("."):
                if len(segment) >= 4 and segment not in SEGMENT_STOP:
                    self._segments.setdefault(segment, set()).add(record.package)
        return index

    @classmethod
    def build(cls, registry: AppRegistry, entries: Iterable[AppKbEntry]) -> ResolverIndex:
        """Index the registry's names and the App-KB's non-stale entries."""
        records: list[NameRecord] = []
        for name, package, is_label in registry.names():
            n = normalize(name)
            if n.norm:
                evidence = "exact_label" if is_label else "exact_alias"
                records.append(NameRecord(name, n.norm, n.alnum, package, "registry", "global", evidence))
        index = cls(records)
        for entry in entries:
            index.put_entry(entry)
        return index

    # -- incremental upkeep ------------------------------------------------------------

    def put_entry(self, entry: AppKbEntry) -> None:
        """Index an App-KB entry, replacing any earlier version of it; a stale one is only removed."""
        self.remove_entry(entry.key)
        n = normalize(entry.term)
        if entry.stale or not n.norm:
            return
        evidence = "exact_label" if entry.kind == "device" else "exact_alias"
        record = NameRecord(
            entry.term,
            n.norm,
            n.alnum,
            entry.package,
            entry.kind,
            entry.scope,
            evidence,
            entry.success_count,
            entry.last_success,
        )
        self._by_key[entry.key] = self._add(record)
        self._keys_by_term.setdefault(entry.term_norm, set()).add(entry.key)

    def remove_entry(self, key: EntryKey) -> None:
        index = self._by_key.pop(key, None)
        if index is not None:
            self._alive[index] = False
            self.dead += 1
            term_keys = self._keys_by_term.get(normalize_term(key[0]))
            if term_keys:
                term_keys.discard(key)
            self._relabel(self.records[index].package)

    def _relabel(self, package: str) -> None:
        """Recompute a package's label from its live names, by the rule `_add` follows."""
        label = None
        for index in self._by_package.get(package, ()):
            if self._alive[index] and (label is None or _names_label(self.records[index])):
                label = self.records[index].text
        if label is None:
            self.labels.pop(package, None)
        else:
            self.labels[package] = label

    def apply_event(self, event_type: str, payload: Mapping[str, object]) -> None:
        """Follow one App-KB event, by the same rules as the store's view."""
        for change in changes_for(event_type, payload):
            if isinstance(change, Put):
                self.put_entry(change.entry)
            elif isinstance(change, Remove):
                self.remove_entry(change.key)
            else:
                for key in list(self._keys_by_term.get(change.term_norm, ())):
                    if key[3] == "global" and key[2] in change.kinds:
                        self.remove_entry(key)

    def lookalike_of(self, name: str) -> NameRecord | None:
        """A live name that `name` looks like without being it (letters of another script drawn alike,
        `store.core.names.skeleton`), or None."""
        norm = normalize(name).norm
        for index in self._skeletons.get(fold_lookalikes(norm), ()):
            record = self.records[index]
            if self._alive[index] and record.norm != norm:
                return record
        return None

    def names_elsewhere(self, name: str, package: str) -> list[NameRecord]:
        """Live names that are exactly `name` and that a device's inventory (any device), the shipped registry or
        the person's user alias give to another package than `package`: what a learned alias must not override."""
        n = normalize(name)
        found: dict[int, NameRecord] = {}
        for key in {n.norm, n.alnum, normalize_term(name)}:
            for index in self._exact.get(key, ()):
                record = self.records[index]
                if self._alive[index] and record.package != package and record.source in AUTHORITATIVE:
                    found.setdefault(index, record)
        return list(found.values())

    @property
    def dead_share(self) -> float:
        """How much of the index is tombstones (rebuild when it grows large)."""
        return self.dead / max(1, len(self.records))

    # -- routes ------------------------------------------------------------------------

    def _shortlist(self, postings: dict[str, list[int]], grams: Iterable[str]) -> list[int]:
        """Names sharing the most grams with the query, reading rare grams first.

        A gram that half the names share says little and costs much: once the
        budget is spent (and at least two grams were read), commoner grams are skipped.
        """
        lists = sorted((hits for gram in grams if (hits := postings.get(gram))), key=len)
        counts: Counter[int] = Counter()
        read = 0
        for number, hits in enumerate(lists):
            if number >= 2 and read + len(hits) > POSTINGS_BUDGET:
                break
            counts.update(hits)
            read += len(hits)
        return [index for index, _ in counts.most_common(SHORTLIST)]

    def resolve(
        self,
        query: str,
        *,
        device: str | None = None,
        installed: set[str] | None = None,
        deny: Callable[[str], bool] | None = None,
        embedding: EmbeddingRoute | None = None,
        now: datetime | None = None,
    ) -> Resolution:
        """Decide what `query` names on `device` (see the module docstring)."""
        started = time.perf_counter()
        q = normalize(query)
        if not q.norm:
            return Resolution(query, "", "unknown", None, "empty", [], device=device)
        scopes = {"global", device_scope(device)} if device else {"global"}
        best = self._candidates(query, q, scopes, installed, embedding, now or datetime.now(UTC))
        ranked = sorted(best.values(), key=rank_key)
        if installed is not None:
            present = [c for c in ranked if c.installed]
            absent = [c for c in ranked if not c.installed][:3]
        else:
            present, absent = ranked, []
        state, reason, chosen = verdict(present, absent, deny)
        if chosen is not None and present[0].source in LEARNED and self.names_elsewhere(query, chosen):
            # A learned alias against another app's own name (a device's label, the registry's, the person's
            # alias): a person decides which, never an auto-launch.
            state, reason, chosen = "ambiguous", "named_elsewhere", None
        elapsed = (time.perf_counter() - started) * 1000
        return Resolution(query, q.norm, state, chosen, reason, present[:MAX_CANDIDATES], absent, device, elapsed)

    def _candidates(
        self,
        query: str,
        q: Normalized,
        scopes: set[str],
        installed: set[str] | None,
        embedding: EmbeddingRoute | None,
        now: datetime,
    ) -> dict[str, Candidate]:
        """The best candidate per package from every route: exact, package, lexical, pinyin, embedding
        (one function because the routes share `offer`, which keeps the best candidate per package)."""
        best: dict[str, Candidate] = {}

        def offer(index: int, similarity: float, evidence: str, route: str, contained: bool = False) -> None:
            record = self.records[index]
            if record.scope not in scopes or not self._alive[index]:
                return
            prior = prior_of(record, now)
            score = 0.8 * similarity + 0.2 * prior
            current = best.get(record.package)
            candidate = Candidate(
                record.package,
                self.labels.get(record.package, record.text),
                record.text,
                record.source,
                evidence,
                route,
                similarity,
                prior,
                score,
                None if installed is None else record.package in installed,
                contained,
            )
            if current is None or better(candidate, current):
                best[record.package] = candidate

        # 1. exact names
        for key in {q.norm, q.alnum, normalize_term(query)}:
            for index in self._exact.get(key, ()):
                offer(index, 1.0, self.records[index].exact_evidence, "exact")
        # 2. the package itself, or a distinctive piece of it
        package = self._packages.get(query.strip().casefold())
        if package:
            self._offer_package(best, package, "exact_package", installed)
        elif len(q.alnum) >= 4 and q.alnum not in SEGMENT_STOP:
            owners = self._segments.get(q.alnum, set())
            if installed is not None:
                owners = owners & installed
            if len(owners) == 1:
                self._offer_package(best, next(iter(owners)), "exact_package_segment", installed)
        # 3. lexical
        for index in self._shortlist(self._grams, _grams_of(q.norm)):
            match = lexical_similarity(q.norm, self.records[index].norm)
            if match.similarity >= LEXICAL_MIN and match.similarity < 1.0:
                strong = match.containment == "candidate_in_query" and match.leftover_is_filler
                contained = match.containment == "candidate_in_query"
                evidence = "registered_containment" if strong else "fuzzy"
                offer(index, match.similarity, evidence, "lexical", contained)
        # 4. pinyin
        self._pinyin_route(q.alnum, offer)
        # 5. embedding (pluggable)
        if embedding is not None:
            for text, package_name, similarity in embedding(q.norm):
                self._offer_embedding(best, text, package_name, similarity, installed, scopes)
        return best

    def _pinyin_route(self, alnum: str, offer: Callable[[int, float, str, str], None]) -> None:
        """Same sound: a Chinese query by its pinyin (homophones match exactly); a Latin
        query as typed pinyin, full (with typos) or initials."""
        key = pinyin_key(alnum)
        spoken = key.full if key else alnum
        if not spoken or not spoken.isascii():
            return
        exact = self._pinyin_full.get(spoken, [])
        for index in exact:
            offer(index, 0.97, "pinyin_full", "pinyin")
        if key is None and len(alnum) >= 2:
            for index in self._pinyin_initials.get(alnum, ()):
                offer(index, 0.92, "pinyin_initials", "pinyin")
        if key is None and len(spoken) >= 3:
            seen = set(exact)
            for index in self._shortlist(self._pinyin_grams, ngrams(spoken, 3)):
                other = self._pinyin_of[index]
                if index in seen or other is None:
                    continue
                similarity = 0.97 * Indel.normalized_similarity(spoken, other)
                if similarity >= PINYIN_MIN:
                    offer(index, similarity, "pinyin_full", "pinyin")

    def _offer_package(
        self, best: dict[str, Candidate], package: str, evidence: str, installed: set[str] | None
    ) -> None:
        prior = DEFAULT_PRIOR
        candidate = Candidate(
            package,
            self.labels.get(package, package),
            package,
            "package",
            evidence,
            "exact",
            1.0,
            prior,
            0.8 + 0.2 * prior,
            None if installed is None else package in installed,
        )
        current = best.get(package)
        if current is None or better(candidate, current):
            best[package] = candidate

    def _offer_embedding(
        self,
        best: dict[str, Candidate],
        text: str,
        package: str,
        similarity: float,
        installed: set[str] | None,
        scopes: set[str],
    ) -> None:
        similarity = max(0.0, min(1.0, similarity))
        candidate = Candidate(
            package,
            self.labels.get(package, text),
            text,
            "embedding",
            "embedding",
            "embedding",
            similarity,
            DEFAULT_PRIOR,
            0.8 * similarity + 0.2 * DEFAULT_PRIOR,
            None if installed is None else package in installed,
        )
        current = best.get(package)
        if current is None or better(candidate, current):
            best[package] = candidate


def _names_label(record: NameRecord) -> bool:
    """A device label or registry display name is the label shown for its package (the last one wins)."""
    return record.exact_evidence == "exact_label" and record.source != "learned"
