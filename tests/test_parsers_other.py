"""The unstructured fallback works with the network absent, and never tries to reach it.

The check runs in a fresh interpreter whose sockets and DNS refuse and record every attempt before
anything is imported, with the opt-out variables removed from its environment: seams must set them
itself. unstructured would otherwise ping its telemetry endpoint at import and download a spaCy model
on first use.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

EML = """\
From: =?UTF-8?B?6rmA66+87IiY?= <minsu@example.org>
To: team@example.org
Subject: =?UTF-8?B?7ZqM7J2YIOyViOuCtA==?=
Date: Mon, 2 Mar 2026 09:00:00 +0900
MIME-Version: 1.0
Content-Type: text/plain; charset="utf-8"
Content-Transfer-Encoding: 8bit

안녕하세요. 3월 정기 회의는 화요일 오전 10시에 3층 회의실에서 열립니다.

The quarterly review covers budget items and growth by region.
"""

GUARDED = """
import json, socket, sys
attempts = []
def refuse(*args, **kwargs):
    attempts.append(repr(args[1:] if args and isinstance(args[0], socket.socket) else args)[:200])
    raise OSError("network disabled by the test")
socket.socket.connect = refuse
socket.socket.connect_ex = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse
from parsers import parse
doc = parse(sys.argv[1])
print(json.dumps({"attempts": attempts, "format": doc.format, "title": doc.properties.title,
                  "author": doc.properties.author, "blocks": [[b.kind, b.text] for b in doc.blocks]},
                 ensure_ascii=False))
"""


@pytest.mark.slow
def test_email_parses_offline_without_any_connection_attempt(tmp_path: Path) -> None:
    path = tmp_path / "회의.eml"
    path.write_text(EML, encoding="utf-8")
    env = {k: v for k, v in os.environ.items()
           if k not in ("DO_NOT_TRACK", "SCARF_NO_ANALYTICS", "UNSTRUCTURED_DISABLE_NOTICE", "HF_HUB_OFFLINE")}
    result = subprocess.run([sys.executable, "-c", GUARDED, str(path)], cwd=REPO, env=env,
                            capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["attempts"] == [], report["attempts"]
    assert "Thank you for using Unstructured" not in result.stdout  # the usage notice stays off
    assert report["format"] == "eml"
    assert report["title"] == "회의 안내" and report["author"].startswith("김민수")
    kinds_texts = report["blocks"]
    assert kinds_texts[0] == ["heading", "회의 안내"]
    assert kinds_texts[1][0] == "paragraph" and "From: 김민수 <minsu@example.org>" in kinds_texts[1][1]
    body = [text for kind, text in kinds_texts[2:]]
    assert any("3월 정기 회의는 화요일 오전 10시에" in text for text in body)
    # A Korean sentence is a paragraph, not the "Title" unstructured's heuristic would make it.
    assert all(kind != "heading" for kind, _ in kinds_texts[2:])
    assert any("quarterly review covers budget items" in text for text in body)


def test_email_detected_by_content_without_extension(tmp_path: Path) -> None:
    from parsers import detect_format

    path = tmp_path / "message"
    path.write_text(EML, encoding="utf-8")
    assert detect_format(path) == "eml"


@pytest.mark.slow
def test_offline_model_comes_from_an_installed_package() -> None:
    from parsers.other import offline_spacy_model, prepare_unstructured

    prepare_unstructured()
    from unstructured.nlp import tokenize

    assert tokenize._get_nlp() is offline_spacy_model()
    with pytest.raises(RuntimeError, match="offline"):
        tokenize._install_spacy_model()
    assert offline_spacy_model()("Seams cuts documents. At their seams.").has_annotation("SENT_START")


@pytest.mark.parametrize("fmt", ["epub", "odt", "rtf", "rst", "org"])
def test_formats_needing_pandoc_are_skipped_when_it_is_missing(tmp_path: Path, fmt: str) -> None:
    import shutil

    from parsers import ParseError
    from parsers.other import parse_with_unstructured

    if shutil.which("pandoc"):
        pytest.skip("pandoc is installed here")
    path = tmp_path / f"file.{fmt}"
    path.write_text("text", encoding="utf-8")
    with pytest.raises(ParseError) as caught:
        parse_with_unstructured(path, fmt)
    assert caught.value.kind == "unsupported" and "pandoc" in caught.value.message
