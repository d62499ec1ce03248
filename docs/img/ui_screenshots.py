"""The README's screenshots of ``seams ui``: the files, a file's chunks, a search (docs/img/ui-*.png).

Usage: python docs/img/ui_screenshots.py URL — URL of a running ``seams ui`` over the sample folder's
knowledge base (``seams ingest examples/`` then ``seams ui``). Needs Playwright and Chromium
(/usr/bin/chromium); the images are made small with a 64-colour palette.
"""

from __future__ import annotations

import sys
import urllib.parse
from pathlib import Path

from PIL import Image
from playwright.sync_api import sync_playwright

HERE = Path(__file__).parent


def shoot(page, url: str, name: str) -> None:
    page.goto(url)
    path = HERE / f"ui-{name}.png"
    page.screenshot(path=str(path))
    Image.open(path).convert("RGB").quantize(64).save(path, optimize=True)
    print(f"{path}: {path.stat().st_size // 1024} KB")


def main() -> None:
    base = sys.argv[1].rstrip("/")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium")
        page = browser.new_page(viewport={"width": 1200, "height": 720})
        shoot(page, f"{base}/kb/default/files", "files")
        page.goto(f"{base}/kb/default/files?format=pdf")
        regulation = page.locator("#files a", has_text="개인정보_보호_규정.pdf").get_attribute("href")
        shoot(page, f"{base}{regulation}&compare=tokens:800/400", "chunks")
        query = urllib.parse.urlencode({"q": "개인정보 파기 기한", "mode": "hybrid", "mode2": "vector", "k": 3})
        shoot(page, f"{base}/kb/default/search?{query}", "search")
        browser.close()


if __name__ == "__main__":
    main()
