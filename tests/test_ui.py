"""``seams ui`` in a real browser (Playwright driving Chromium) over a real server and the sample folder's KB.

The knowledge base is the sample folder (``examples/``) indexed into tmp_path with the hashing
embedder, plus a file whose name is HTML, one whose text is HTML and one that fails; the page is
served by uvicorn on 127.0.0.1. Chromium is Debian's (``.ci/run`` installs it); the browser tests
skip, saying why, only where it or Playwright is missing.
"""

from __future__ import annotations

import shutil
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from test_sync import settings

from flows.app.cli import EXIT_USAGE, main
from flows.app.ui import create_app
from flows.app.ui.library import Library, NotFound, boundary_reason
from flows.app.ui.text import highlight, match_spans, passage
from flows.index.store import Store
from flows.ingest.flow import ingest_flow, report_of

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
CHROMIUM = Path("/usr/bin/chromium")
#: A file name that is markup: it must show as these characters, never as an element.
HTML_NAME = "<img src=x onerror=\"window.pwned=1\">.md"
HTML_TEXT = ("# Notes <b>not bold</b>\n\nThis chunk holds markup: <script>window.pwned=2</script> "
             "and <img src=x onerror=\"window.pwned=3\"> which must stay text.\n")
REGULATION = "개인정보_보호_규정.pdf"


@pytest.fixture(scope="module")
def kb(prefect_harness, tmp_path_factory) -> tuple[str, Path]:
    root = tmp_path_factory.mktemp("ui") / "docs"
    shutil.copytree(EXAMPLES, root, ignore=shutil.ignore_patterns("*.py", "*.jsonl"))
    (root / HTML_NAME).write_text(HTML_TEXT, encoding="utf-8")
    (root / "empty.txt").write_bytes(b"")  # fails: empty
    db = str(root.parent / "db")
    report = report_of(ingest_flow([str(root)], settings(db), return_state=True))  # ends Failed: empty.txt
    assert report.failed == 1 and report.count("added") == 8
    return db, root


@pytest.fixture(scope="module")
def server(kb) -> str:
    import uvicorn

    db, _ = kb
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    app = create_app(settings(db))
    instance = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=instance.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not instance.started:
        assert time.monotonic() < deadline, "the page's server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    instance.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (pip install -e '.[test]')")
    if not CHROMIUM.exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium; .ci/run installs it)")
    with sync_api.sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=str(CHROMIUM))
        yield instance
        instance.close()


@pytest.fixture()
def page(browser):
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert not errors, errors


def file_url(server: str, path: Path | str, **params) -> str:
    return f"{server}/kb/default/file?" + urllib.parse.urlencode({"path": str(path), **params})


def get(url: str) -> tuple[int, str, dict]:
    try:
        with urllib.request.urlopen(url) as response:
            return response.status, response.read().decode(), dict(response.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(), dict(exc.headers)


# -- in the browser ----------------------------------------------------------------------------

def test_the_file_list_shows_every_file_with_its_decision_and_filters(server, kb, page):
    page.goto(f"{server}/")  # one knowledge base: the page opens its files
    assert page.url.endswith("/kb/default/files")
    rows = page.locator("#files tbody tr")
    assert rows.count() == 9  # the 7 samples, the file named and written in HTML, the empty file
    regulation = rows.filter(has_text=REGULATION)
    assert "legal-articles" in regulation.inner_text() and "section" in regulation.inner_text()
    assert "empty" in rows.filter(has_text="empty.txt").inner_text()
    assert "1 failed" in page.locator("#summary").inner_text()
    page.select_option("select[name=status]", "failed")
    page.click("form.filters button")
    assert page.locator("#files tbody tr").count() == 1
    assert "empty.txt" in page.locator("#files tbody").inner_text()
    page.goto(f"{server}/kb/default/files?format=pdf")
    assert page.locator("#files tbody tr").count() == 2
    assert page.locator("#count").inner_text() == "2 files"


def test_a_pdf_shows_its_chunks_with_rule_pages_and_boundaries(server, kb, page):
    _, root = kb
    page.goto(f"{server}/kb/default/files")
    page.click(f"text={REGULATION}")
    assert page.locator("#file-name").inner_text() == REGULATION
    assert page.locator("#rule").inner_text().startswith("legal-articles: ")
    assert "제N조" in page.locator("#rule").inner_text()
    chunks = page.locator("#chunks article.chunk")
    stored = Store(kb[0]).count(f"source = '{root / REGULATION}'")
    assert chunks.count() == stored > 1
    assert chunks.nth(0).locator(".loc").inner_text().startswith("p. 1")
    assert chunks.nth(0).locator(".why").inner_text() == "start of the file"
    reasons = [chunks.nth(i).locator(".why").inner_text() for i in range(1, stored)]
    assert any(reason.startswith("heading: 제") for reason in reasons)
    pages = [chunks.nth(i).locator(".loc").inner_text() for i in range(stored)]
    assert pages[-1].startswith("p. 3") or pages[-1].startswith("p. 2-3")


def test_a_korean_search_returns_the_regulation_article_highlighted(server, kb, page):
    page.goto(f"{server}/kb/default/search")
    page.fill("input[name=q]", "개인정보 파기 기한")
    page.select_option("select[name=mode]", "fts")
    page.select_option("select[name=mode2]", "hybrid")
    page.click("form.search button")
    for mode in ("fts", "hybrid"):
        first = page.locator(f"#hits-{mode} article.hit").first
        assert REGULATION in first.locator(".meta").inner_text()
        snippet = first.locator("pre.text").first
        assert "5일 이내에" in snippet.inner_text() and "파기" in snippet.inner_text()
        assert "파기" in [m.inner_text() for m in snippet.locator("mark").all()]
    page.locator("#hits-fts article.hit .meta a").first.click()  # to the chunk in its file
    assert page.locator("#file-name").inner_text() == REGULATION
    target = page.url.split("#")[1]
    assert "파기하여야 한다" in page.locator(f"#{target} pre.text").inner_text()


def test_the_side_by_side_view_cuts_the_file_by_another_strategy(server, kb, page):
    _, root = kb
    page.goto(file_url(server, root / REGULATION))
    page.fill("input[name=compare]", "tokens:200/0")
    page.click("text=Compare")
    left = page.locator("#compare section").first.locator("article.chunk")
    right = page.locator("#other article.chunk")
    assert "tokens:200/0" in page.locator("#other h2").inner_text()
    assert right.count() > left.count() > 1
    assert right.nth(1).locator(".why").inner_text() == "fixed-size window (tokens:200/0)"
    sizes = [int(right.nth(i).locator(".meta").inner_text().split(" · ")[1].split()[0]) for i in range(right.count())]
    assert 150 < max(sizes) <= 205  # windows of 200 tokens, counted again on their decoded text
    page.goto(file_url(server, root / REGULATION, compare="bogus"))
    error = page.locator("#error").inner_text()
    assert error.startswith("unknown strategy 'bogus'; known: ") and "general, page, section" in error, error


def test_html_in_names_and_chunks_renders_as_text(server, kb, page):
    page.goto(f"{server}/kb/default/files")
    link = page.locator("#files a", has_text="<img src=x")
    assert link.inner_text() == HTML_NAME
    assert page.title() == "default · files · seams"
    link.click()
    assert page.locator("#file-name").inner_text() == HTML_NAME
    text = page.locator("#chunks pre.text").first.inner_text()
    assert "<script>window.pwned=2</script>" in text and "<b>not bold</b>" in text
    assert page.locator("main img").count() == 0 and page.locator("main script").count() == 0
    assert page.locator("main b").count() == 0
    assert page.evaluate("typeof window.pwned") == "undefined"
    page.goto(f"{server}/kb/default/search?q=markup+script&mode=fts")
    assert "<script>" in page.locator("#hits-fts").inner_text()
    assert page.locator("main script").count() == 0 and page.evaluate("typeof window.pwned") == "undefined"


# -- over HTTP ---------------------------------------------------------------------------------

def test_no_path_outside_the_manifest_is_read_and_errors_are_clear(server, kb):
    status, body, headers = get(file_url(server, "/etc/passwd"))
    assert status == 404 and "no file &#39;/etc/passwd&#39; in knowledge base" in body and "root:" not in body
    assert "script-src" not in headers["content-security-policy"] and "default-src 'none'" in headers["content-security-policy"]
    status, body, _ = get(f"{server}/kb/nope/files")
    assert status == 404 and "no knowledge base &#39;nope&#39;" in body and "it has: default" in body
    status, body, _ = get(f"{server}/kb/default/search?q=x&mode=semantic")
    assert status == 400 and "unknown search mode" in body
    status, body, _ = get(f"{server}/kb/default/files?page=zero")
    assert status == 400 and "page must be a number" in body
    status, body, _ = get(f"{server}/style.css")
    assert status == 200 and "mark" in body


def test_runs_list_the_ingests_with_their_failures(server, kb):
    status, body, _ = get(f"{server}/kb/default/runs")
    assert status == 200 and "empty.txt" in body and "<td class=\"n bad\">1</td>" in body
    run = Store(kb[0]).runs.latest(1)[0]
    assert run["failed"] == 1 and run["added"] == 8 and run["paths"] == [str(kb[1])]
    # the run reported to the test harness's server, which is also the one configured for the page: linked
    assert run["flow_run_id"] and f'/runs/flow-run/{run["flow_run_id"]}">flow run</a>' in body


def test_a_missing_database_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(NotFound, match="no seams database at"):
        Library(settings(tmp_path / "nothing"))
    assert main(["ui", "--db", str(tmp_path / "nothing")]) == EXIT_USAGE
    assert "no seams database at" in capsys.readouterr().err
    assert not (tmp_path / "nothing").exists()


def test_a_port_in_use_is_a_usage_error(kb, capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["ui", "--db", kb[0], "--port", str(port)]) == EXIT_USAGE
    assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err


def test_paging_reads_one_page_in_path_order(kb):
    library = Library(settings(kb[0]))
    first, second = library.files("default", per_page=4), library.files("default", page=2, per_page=4)
    assert first.total == 9 and first.pages == 3 and len(first.rows) == 4 and len(second.rows) == 4
    paths = [row["path"] for row in first.rows + second.rows]
    assert paths == sorted(paths) and len(set(paths)) == 8
    assert library.files("default", page=99, per_page=4).page == 3  # past the end: the last page


# -- text and boundaries -----------------------------------------------------------------------

def test_highlight_escapes_before_marking():
    marked = highlight("<b>파기</b> & 파기하여", "파기를")
    assert str(marked) == "&lt;b&gt;<mark>파기</mark>&lt;/b&gt; &amp; <mark>파기</mark>하여"
    assert match_spans("Passwords must have 12 characters", "password length") == [(0, 8)]
    assert str(highlight("the <script>", "the")) == "the &lt;script&gt;"  # stop words are not marked


def test_passage_is_the_part_that_matches():
    text = "\n".join(f"line {n} of filler text" for n in range(100)) + "\n보유기간이 지난 개인정보는 5일 이내에 파기\n"
    shown = str(passage(text, "개인정보 파기", width=120))
    assert shown.startswith("… ") and "<mark>파기</mark>" in shown and "line 0 " not in shown


def test_boundary_reasons_read_off_the_locators():
    first = {"heading_path": "제1장", "page_start": 1, "page_end": 1, "sheet": None}
    assert boundary_reason(None, first, "section") == "start of the file"
    assert boundary_reason(first, dict(first, heading_path="제1장 > 제2조(정의)"), "section") == "heading: 제2조(정의)"
    assert boundary_reason(first, dict(first, page_start=2, page_end=2), "page") == "page 2"
    assert boundary_reason(first, dict(first), "section").startswith("within a section over the budget")
    rows = {"sheet": "Q1", "row_start": 1, "row_end": 40}
    assert boundary_reason(rows, dict(rows, sheet="Q2"), "sheet") == "new sheet 'Q2'"
    assert boundary_reason(first, first, "tokens:800/400") == "fixed-size window (tokens:800/400)"
