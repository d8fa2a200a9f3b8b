"""The student track in Chinese: ``course-lab practice 11 DIR --lang zh`` and what follows.

A Chinese practice folder records its language, so ``check`` and ``solution``
answer in Chinese without the flag; the first red reads as the course's
(``Lab 11.1 compaction entry 尚未实现``); every line the track prints, and the
guidance of every region, has its Chinese in the catalog.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

import course_lib
from course_lib.base.errors import CourseError
from course_lib.base.i18n import has_translation, tr
from course_lib.tools.cli import main
from course_lib.track import catalogue
from course_lib.track.language import (
    LANGUAGE_FILE,
    folder_language,
    hint_in_language,
    write_folder_language,
)
from course_lib.track.starters import (
    REGION_GUIDANCE,
    find_regions,
    not_implemented_message,
    practice_files,
    practice_modules,
    reference_source,
    region_function,
)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def last_line(text: str) -> str:
    return text.strip().splitlines()[-1]


PACKAGE = Path(course_lib.__file__).parent
TRACK_SOURCES = [*sorted((PACKAGE / "track").glob("*.py")), PACKAGE / "tools" / "track_commands.py"]
PRINTERS = {"tr": 1, "tr_shown": 1, "tr_plural": 1}  # a plural is found by its singular
"""The functions that print a line in the track's language, and where their messages are."""


def _printed_lines() -> list[str]:
    """Every literal message the track passes to ``tr``, ``tr_shown`` or ``tr_plural``."""
    lines = []
    for path in TRACK_SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute):
                name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
                index = PRINTERS.get(name, len(node.args))
                argument = node.args[index] if len(node.args) > index else None
                if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                    lines.append(argument.value)
    return lines


def test_every_line_the_track_prints_has_its_chinese() -> None:
    lines = _printed_lines()
    assert len(lines) > 20  # the reading of the track works
    assert [line for line in lines if not has_translation("zh", line)] == []


def test_every_region_has_chinese_guidance_of_its_own() -> None:
    """Each function the student writes says its own rules in Chinese, above its own ``raise``."""
    functions = []
    for module in practice_modules():
        text = reference_source(module)
        regions = find_regions(text, module)
        functions += [region_function(module, text.splitlines(), region) for region in regions]
    assert sorted(functions) == sorted(REGION_GUIDANCE)
    assert all(has_translation("zh", text) for text in REGION_GUIDANCE.values())
    chinese = {tr("zh", text) for text in REGION_GUIDANCE.values()}
    assert len(chinese) == len(REGION_GUIDANCE)  # each region its own text
    budget = practice_files(lang="zh")["budget.py"]
    notes = [line for line in budget.splitlines() if "中文说明：" in line]
    assert len(notes) == 6 and len(set(notes)) == 6  # six regions in budget.py, six texts


def test_the_first_red_reads_as_the_course_s() -> None:
    assert not_implemented_message("11.1", "zh") == "Lab 11.1 compaction entry 尚未实现"
    assert not_implemented_message("11.1") == "Lab 11.1 compaction entry is not implemented yet"


def test_chinese_starters_compile_and_carry_the_lab_s_guidance() -> None:
    english, chinese = practice_files(), practice_files(lang="zh")
    assert set(english) == set(chinese)
    for name, text in chinese.items():
        ast.parse(text, filename=name)  # the Chinese comments keep every file valid Python
        for lab, topic in catalogue.LAB_TOPICS.items():
            raised = f'raise LabNotImplemented("Lab {lab} {topic} 尚未实现")'
            if raised in text:
                assert "中文说明：" in text, (name, lab)
                assert (
                    f'raise LabNotImplemented("Lab {lab} {topic} is not implemented yet")'
                    in (english[name])
                )
    for line in "".join(chinese.values()).splitlines():
        if any(ord(char) >= 0x2E80 for char in line):  # a Chinese character takes two columns
            width = sum(2 if ord(char) >= 0x2E80 else 1 for char in line)
            assert width <= 100, line


@pytest.fixture(scope="module")
def chinese_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("zh") / "p"
    assert main(["practice", "11", str(directory), "--lang", "zh"]) == 0
    return directory


def test_practice_records_the_language(chinese_package: Path) -> None:
    recorded = json.loads((chinese_package / LANGUAGE_FILE).read_text(encoding="utf-8"))
    assert recorded == {"lang": "zh"}
    assert folder_language(chinese_package) == "zh"
    assert folder_language(None) == "en"


def test_a_chinese_folder_goes_from_red_to_green_in_chinese(
    chinese_package: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(capsys, "check", "11.1", "--impl", str(chinese_package))
    assert (status, err) == (1, "")
    assert out.splitlines()[0] == f"Lab 11.1 compaction entry：检查对象为练习包 {chinese_package}"
    rows = [line for line in out.splitlines() if line.startswith("  失败  ")]
    assert len(rows) == 3
    assert all(
        row.endswith(" -- LabNotImplemented: Lab 11.1 compaction entry 尚未实现") for row in rows
    )
    assert last_line(out) == "Lab 11.1：0/3 项通过"

    # An explicit --lang wins over what the folder recorded.
    status, out, _ = run(capsys, "check", "11.1", "--impl", str(chinese_package), "--lang", "en")
    assert status == 1 and last_line(out) == "Lab 11.1: 0/3 passed"

    status, out, _ = run(capsys, "solution", "11", str(chinese_package))
    assert status == 0
    assert "Lab 11.1 compaction entry：参考解答已写入 entries.py" in out.splitlines()
    assert last_line(out) == f"下一步：course-lab check 11 --impl {chinese_package}"
    status, out, _ = run(capsys, "check", "11", "--impl", str(chinese_package))
    assert status == 0 and last_line(out) == "第 11 章：15/15 项通过"
    for lab, count in catalogue.LAB_CHECK_COUNTS.items():
        assert f"Lab {lab}：{count}/{count} 项通过" in out.splitlines()


def test_a_later_lab_s_chinese_red_still_counts_as_waiting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from course_lib.track.checks import _waits_for

    detail = "LabNotImplemented: Lab 11.5 resume compaction 尚未实现"
    assert _waits_for("11.3", detail) == "11.5"
    assert _waits_for("11.5", detail) is None


def test_a_broken_language_file_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / LANGUAGE_FILE).write_text('{"lang": "fr"}\n', encoding="utf-8")
    with pytest.raises(CourseError, match="unknown language 'fr'; choose one of en, zh"):
        folder_language(tmp_path)
    (tmp_path / LANGUAGE_FILE).write_text("not json", encoding="utf-8")
    with pytest.raises(CourseError, match="not a language file"):
        folder_language(tmp_path)


# --- the extended suite and regenerating a folder, in Chinese ------------------------------


def test_the_extended_suite_reports_in_chinese_and_chinese_reds_wait(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from course_lib.track import checks

    def unfinished(lab: str) -> str:
        return f"practice_0123.labs.LabNotImplemented: Lab {lab} 尚未实现"

    wider = [
        {"name": "test_passes", "outcome": "passed", "detail": ""},
        {"name": "test_wrong", "outcome": "failed", "detail": "AssertionError: assert 1 == 2"},
        {"name": "test_later", "outcome": "failed", "detail": unfinished("11.5 resume compaction")},
        {"name": "test_later_too", "outcome": "failed", "detail": unfinished("11.5 resume")},
        {"name": "test_next", "outcome": "failed", "detail": unfinished("11.4 create compaction")},
    ]
    lab_checks = [{"name": f"test_{n}", "outcome": "passed", "detail": ""} for n in "abc"]

    def fake_run(files: object, *, impl: object, what: str, **_: object) -> checks._Run:
        return checks._Run(rows=wider if "extended" in what else lab_checks)

    monkeypatch.setattr(checks, "_run_pytest", fake_run)
    status, out, _ = run(capsys, "check", "11.3", "--extended", "--lang", "zh")

    assert status == 1
    assert out.splitlines()[-7:] == [
        "Lab 11.3 扩展测试（tests/chapter/test_fixture_numbers.py, tests/chapter/test_properties.py）：",
        "  失败  test_wrong -- AssertionError: assert 1 == 2",
        "  （另有 1 项通过的测试未列出）",
        "  等待  1 项测试用到尚未实现的 Lab 11.4 create compaction：不计入",
        "  等待  2 项测试用到尚未实现的 Lab 11.5 resume compaction：不计入",
        "Lab 11.3 扩展测试：1/2 项通过（另有 3 项在等待后面的实验）",
        "Lab 11.3：3/3 项通过",
    ]


def test_regenerating_a_chinese_folder_keeps_its_language_unless_told(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = tmp_path / "p"
    assert main(["practice", "11", str(directory), "--lang", "zh"]) == 0
    status, out, _ = run(capsys, "practice", "11", str(directory), "--force")
    assert status == 0 and out.startswith("已把第 11 章的练习包写入 ")
    assert folder_language(directory) == "zh"
    assert "尚未实现" in (directory / "entries.py").read_text(encoding="utf-8")

    status, out, _ = run(capsys, "practice", "11", str(directory), "--force", "--lang", "en")
    assert status == 0 and out.startswith("Wrote the Chapter 11 practice package to ")
    assert folder_language(directory) == "en"
    entries = (directory / "entries.py").read_text(encoding="utf-8")
    assert "尚未实现" not in entries and "is not implemented yet" in entries


# --- a failing check in a Chinese folder: its words in Chinese, its values as they are -------


@pytest.mark.parametrize(
    ("detail", "chinese"),
    [
        (
            "build_context(fixture, max_tokens=31): kept_entry_ids: expected [u2, a2], got [a2]",
            "build_context(fixture, max_tokens=31): kept_entry_ids：期望 [u2, a2]，实际为 [a2]",
        ),
        (  # the value it got holds the library's own ", got": it stays whole
            "q(x): expected no error, got BudgetError: max_tokens must be >= 0, got -1",
            "q(x)：期望 no error，实际为 BudgetError: max_tokens must be >= 0, got -1",
        ),
        (
            "compact-1 with files alias: expected 'session entry compact-1', got 'x: y'; "
            "hint: entries() returns copies",
            "compact-1 with files alias：期望 'session entry compact-1'，实际为 'x: y'；"
            "提示：entries() 返回拷贝",
        ),
        # Lines of another shape stay as they are.
        ("LabNotImplemented: Lab 11.1 compaction entry 尚未实现", None),
        ("AssertionError: assert 1 == 2", None),
        ("Timeout: did not finish within the time limit; look for an endless loop", None),
    ],
)
def test_a_check_s_frame_words_read_in_chinese_and_its_values_stay(
    detail: str, chinese: str | None
) -> None:
    assert hint_in_language(detail, "zh") == (chinese or detail)
    assert hint_in_language(detail, "en") == detail


FRAME = re.compile(r"^(?P<case>.*?): expected (?P<expected>.*?), got (?P<got>.*)$")


def check_rows(out: str) -> dict[str, tuple[str, str]]:
    """``{test name: (status word, the rest of its row)}`` of a ``course-lab check`` run."""
    rows = {}
    for line in out.splitlines():
        found = re.match(r"^  (\S+)  (test_\S+)(?: -- (.*))?$", line)
        if found:
            rows[found[2]] = (found[1], found[3] or "")
    return rows


def test_a_failing_check_in_a_chinese_folder_prints_chinese_words_around_the_same_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from test_mutants import MUTANTS, REJECT, mutated_package

    mutant = next(m for m in MUTANTS if m.lab == "11.1" and REJECT in m.failing)
    directory = mutated_package(tmp_path, mutant)
    write_folder_language(directory, "zh")
    _, english_out, _ = run(capsys, "check", "11.1", "--impl", str(directory), "--lang", "en")
    status, chinese_out, _ = run(capsys, "check", "11.1", "--impl", str(directory))
    english, chinese = check_rows(english_out), check_rows(chinese_out)

    assert status == 1 and set(chinese) == set(english) and len(english) == 3
    words = {"PASS": "通过", "FAIL": "失败"}
    for name, (word, detail) in english.items():
        assert chinese[name][0] == words[word], name
        if word == "FAIL":
            case, hint = detail.rsplit("; hint: ", 1)
            frame = FRAME.match(case)
            assert frame, detail
            assert chinese[name][1] == (
                f"{frame['case']}：期望 {frame['expected']}，实际为 {frame['got']}"
                f"；提示：{tr('zh', hint)}"
            )
    assert chinese[REJECT][1].startswith(
        "compact-1 with files alias：期望 a message starting with 'session entry compact-1'，"
        "实际为 'summary.changedFiles: missing field; summary.files: unknown field'；提示："
    )
    assert last_line(chinese_out) == "Lab 11.1：1/3 项通过"
