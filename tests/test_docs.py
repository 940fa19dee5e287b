"""The docs stand on their own: nothing points outside the repository, every
relative link in a Markdown file reaches a file (and heading) that exists, the
examples of ``docs/record.md`` and ``docs/labels.md`` are what the code does,
and no doc or source comment speaks of how the work was done rather than of
the product."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from companion.rules.game import replay
from companion.rules.variants import OPTION_VALUES, VARIANTS

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"

OUTSIDE = re.compile(r"shared/spec|\b(?:RULES|RECORD|LABELS)\.md\b")
"""The files this project's rules, record and label formats once lived in, beside the repository."""

LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)
FENCE = re.compile(r"^\s*(```|~~~)")

DIARY = re.compile("|".join(pattern.replace(" ", r"\s+") for pattern in (
    r"\bsessions? \d+",
    r"\b(?:this|last|next|a later|an earlier) session\b",
    r"\bthe brief\b",
    r"\b(?:issue|ticket)s? #?\d+",
    r"\bwhere the (?:[^.]|\.\d){0,80} (?:was|were) silent\b",
    r"\btried\b(?:[^.]|\.\d){0,120}\bnot kept\b",
    r"\bfirst version\b",
    r"\bwe (?:tried|measured|chose|decided|found)\b",
    r"\bsprint\b",
    r"\bfixed since\b",
    r"\bpreviously\b",
)), re.IGNORECASE)
"""Words of the work's history and organisation, which belong to ``git log``
and ``CHANGELOG.md``'s releases, not to a reference ("a referee session" and
"retried" are the product's own words and pass)."""

SOURCES = ("companion/", "vision/", "hardware/", "web/", "models/", "scripts/", "deploy/")


def tracked_files() -> list[Path]:
    """The repository's files: git's list, or a walk where there is no git checkout."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
        names = [n for n in out.decode("utf-8").split("\0") if n]
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", ".venv", "node_modules", "__pycache__"}
        names = [p.relative_to(REPO).as_posix() for p in REPO.rglob("*")
                 if p.is_file() and not skip & set(p.relative_to(REPO).parts)]
    return [REPO / n for n in names if (REPO / n).is_file()]


def text_of(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return None  # a model, an image: not text


def prose(text: str) -> list[tuple[int, str]]:
    """The Markdown's lines outside fenced code blocks, with inline code spans blanked."""
    out, fenced = [], False
    for number, line in enumerate(text.splitlines(), start=1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            out.append((number, re.sub(r"`[^`]*`", "", line)))
    return out


def anchors(path: Path) -> set[str]:
    """The heading anchors a Markdown renderer gives ``path`` (GitHub's way)."""
    seen: dict[str, int] = {}
    found = set()
    for _, line in prose(path.read_text(encoding="utf-8")):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).replace("`", "").strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        found.add(slug if n == 0 else f"{slug}-{n}")
    return found


def markdown_files() -> list[Path]:
    return sorted(p for p in tracked_files() if p.suffix == ".md")


def test_nothing_outside_the_tests_points_beside_the_repository() -> None:
    offenders = []
    for path in tracked_files():
        rel = path.relative_to(REPO).as_posix()
        if rel.startswith("tests/"):
            continue
        text = text_of(path)
        if text is None:
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if OUTSIDE.search(line):
                offenders.append(f"{rel}:{number}: {line.strip()}")
    assert not offenders, "point at docs/rules.md, docs/record.md or docs/labels.md instead:\n" + "\n".join(offenders)


def reference_texts() -> list[Path]:
    """Every Markdown file, and the Python sources and deploy scripts with their docstrings and comments."""
    return [p for p in tracked_files()
            if p.suffix == ".md"
            or (p.relative_to(REPO).as_posix().startswith(SOURCES) and p.suffix in {".py", ".sh", ".toml", ".service"})]


def test_no_doc_or_comment_tells_the_works_history() -> None:
    found = []
    for path in reference_texts():
        text = text_of(path) or ""
        lines = text.splitlines()
        for match in DIARY.finditer(text):  # the whole text: a phrase may run across a line break
            number = text.count("\n", 0, match.start()) + 1
            found.append(f"{path.relative_to(REPO).as_posix()}:{number}: {lines[number - 1].strip()}")
    assert not found, "say what is, and why; the history is git log's:\n" + "\n".join(found)


def test_the_diary_words_are_the_works_not_the_products() -> None:
    for said in ("Session 12 measured it", "where the brief was silent", "tried at 0.5, not kept",
                 "the first version repeated", "see issue #4", "where the issues were\nsilent"):
        assert DIARY.search(said), said
    for said in ("a referee session lasts 12 hours", "each corner is retried", "every size is tried",
                 "the web session key", "where the printed rules are silent"):
        assert not DIARY.search(said), said


def test_the_three_reference_docs_exist_and_readme_links_them() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for name in ("rules.md", "record.md", "labels.md"):
        assert (DOCS / name).is_file()
        assert f"(docs/{name})" in readme


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: p.relative_to(REPO).as_posix())
def test_relative_links_reach_what_exists(path: Path) -> None:
    broken = []
    for number, line in prose(path.read_text(encoding="utf-8")):
        for target in LINK.findall(line):
            if SCHEME.match(target):
                continue  # a web address or mailto: not this test's business
            file_part, _, fragment = target.partition("#")
            dest = (path.parent / file_part).resolve() if file_part else path
            where = f"{path.relative_to(REPO).as_posix()}:{number}: {target}"
            if not dest.exists():
                broken.append(f"{where} (no such file)")
            elif not dest.is_relative_to(REPO):
                broken.append(f"{where} (outside the repository)")
            elif fragment and dest.suffix == ".md" and fragment not in anchors(dest):
                broken.append(f"{where} (no such heading)")
    assert not broken, "\n".join(broken)


def fenced(path: Path, language: str) -> list[str]:
    """The bodies of the ``language`` code blocks of a Markdown file, in order."""
    return re.findall(rf"^```{language}\n(.*?)^```", path.read_text(encoding="utf-8"), re.MULTILINE | re.DOTALL)


def test_the_record_example_replays_to_the_summary_shown() -> None:
    record = DOCS / "record.md"
    [lines] = fenced(record, "jsonl")
    [summary] = fenced(record, "json")
    assert replay(lines.split("\n")[:-1]).summary() == json.loads(summary)


def test_the_record_doc_names_every_event_type_and_summary_key() -> None:
    from companion.rules.events import EVENT_TYPES

    text = (DOCS / "record.md").read_text(encoding="utf-8")
    for kind in EVENT_TYPES:
        assert f"| `{kind}` |" in text, kind
    for key in ("variant", "hands", "phase", "balances", "board", "rejected", "flags"):
        assert f"| `{key}` |" in text, key


def test_the_rules_doc_names_every_section_and_option() -> None:
    text = (DOCS / "rules.md").read_text(encoding="utf-8")
    for variant in VARIANTS.values():
        assert f"`{variant.name}`" in text
        for section in variant.sections:
            assert f"`{section}`" in text, (variant.name, section)
    for option, values in OPTION_VALUES.items():
        row = next(line for line in text.splitlines() if line.startswith(f"| `{option}` |"))
        for value in values:
            assert json.dumps(value) in row, (option, value)


def test_the_labels_example_parses_and_the_figures_are_those_eval_prints(tmp_path: Path) -> None:
    from vision import evaluate

    labels = DOCS / "labels.md"
    [csv_text] = fenced(labels, "csv")
    (tmp_path / "labels.csv").write_text(csv_text, encoding="utf-8")
    parsed = evaluate.read_labels(tmp_path)
    assert not parsed.problems
    assert parsed.entries["IMG_2383.JPG"] == (4, ["A?"]) and parsed.entries["empty_table.jpg"] == (5, [])

    [figures] = fenced(labels, "json")
    shown = json.loads(figures)
    measured = evaluate.evaluate(tmp_path, recognizer=None, labels=evaluate.Labels())
    assert shown.keys() == measured.keys()
    assert shown["ms_per_image"].keys() == measured["ms_per_image"].keys()
