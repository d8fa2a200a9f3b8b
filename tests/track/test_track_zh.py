"""The student track in Chinese: ``course-lab practice 11 DIR --lang zh`` and what follows.

A Chinese practice folder records its language, so ``check`` and ``solution``
answer in Chinese without the flag; the first red reads as the course's
(``Lab 11.1 compaction entry 尚未实现``); every line exists in both languages.
"""

from __future__ import annotations

import ast
import json
import string
from pathlib import Path

import pytest

from course_lib.base.errors import CourseError
from course_lib.tools.cli import main
from course_lib.track import catalogue
from course_lib.track.language import (
    LANGUAGE_FILE,
    LANGUAGES,
    TEXTS,
    folder_language,
)
from course_lib.track.regions_zh import REGION_GUIDANCE_ZH
from course_lib.track.starters import (
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


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_line_exists_in_both_languages_with_the_same_placeholders() -> None:
    for code, versions in TEXTS.items():
        assert set(versions) == set(LANGUAGES), code
        assert _placeholders(versions["en"]) <= _placeholders(versions["zh"]) | {""}, code
        assert _placeholders(versions["zh"]) >= _placeholders(versions["en"]), code


def test_every_region_has_chinese_guidance_of_its_own() -> None:
    """Each function the student writes says its own rules in Chinese, above its own ``raise``."""
    functions = []
    for module in practice_modules():
        text = reference_source(module)
        regions = find_regions(text, module)
        functions += [region_function(module, text.splitlines(), region) for region in regions]
    assert sorted(functions) == sorted(REGION_GUIDANCE_ZH)
    assert len(set(REGION_GUIDANCE_ZH.values())) == len(REGION_GUIDANCE_ZH)
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
    rows = [line for line in out.splitlines() if line.startswith("  FAIL  ")]
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
        "  FAIL  test_wrong -- AssertionError: assert 1 == 2",
        "  （另有 1 项通过的测试未列出）",
        "  WAIT  1 项测试用到尚未实现的 Lab 11.4 create compaction：不计入",
        "  WAIT  2 项测试用到尚未实现的 Lab 11.5 resume compaction：不计入",
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
