"""Spreadsheet number formats: a cell's value as its format shows it.

Dates as their number format shows them (``2023년 7월 5일``, ``2023.07.05``, ``1월 6일``), in ISO form
where the format depends on the reader's locale (the built-in date formats 14 and 22); numbers too
for the common formats (``$65.80``, ``1,234,567``, ``12.3%``, ``1,250,000원``, ``(1,234)``), and as
the bare number where a format is unusual (scientific, fractions, conditions) or its currency is
the reader's locale's. The codes come from the workbook's styles (:func:`date_codes`,
:func:`number_codes`).
"""

from __future__ import annotations

import datetime as dt
import decimal
import functools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from parsers.tables import normalize_cell

#: Rows read per sheet; the rest is reported as not read.


def _style_formats(workbook: Any, indexes: Iterable[int]) -> Iterator[tuple[int, int, str]]:
    """(style index, number format id, number format) of the workbook's styles at ``indexes``
    (openpyxl keeps the styles' format ids in ``_cell_styles`` and the custom formats, from id 164,
    in ``_number_formats``; openpyxl 3.1)."""
    from openpyxl.styles.numbers import BUILTIN_FORMATS, BUILTIN_FORMATS_MAX_SIZE

    styles = getattr(workbook, "_cell_styles", ())
    custom = getattr(workbook, "_number_formats", ())
    for index in indexes:
        try:
            format_id = styles[index].numFmtId
            code = BUILTIN_FORMATS.get(format_id) if format_id < BUILTIN_FORMATS_MAX_SIZE \
                else custom[format_id - BUILTIN_FORMATS_MAX_SIZE]
        except (IndexError, AttributeError, TypeError):
            continue
        if code:
            yield index, format_id, code


def date_codes(workbook: Any) -> dict[int, str]:
    """The number format of each date style of the workbook, by style index."""
    return {index: code for index, format_id, code in _style_formats(workbook, getattr(workbook, "_date_formats", ()))
            if format_id not in _LOCALE_DATE_IDS}


def number_codes(workbook: Any) -> dict[int, str]:
    """The number format of each style whose numbers :func:`display_number` renders, by style index:
    not General, not a date, not a currency the reader's locale decides."""
    dates = getattr(workbook, "_date_formats", set())
    others = [index for index in range(len(getattr(workbook, "_cell_styles", ()))) if index not in dates]
    return {index: code for index, format_id, code in _style_formats(workbook, others)
            if format_id not in _LOCALE_CURRENCY_IDS and _number_format(code) is not None}


#: Built-in date formats Excel shows in the reader's locale (14: ``2023-07-15`` in Korean,
#: ``7/15/2023`` in American English; 22: the same with a time): the ISO date stays.
_LOCALE_DATE_IDS = frozenset({14, 22})


#: Built-in currency formats Excel shows in the reader's locale (5–8: ``$1,235`` in American
#: English, ``₩1,235`` in Korean; 42, 44: the accounting ones): the number stays as it is.
_LOCALE_CURRENCY_IDS = frozenset({5, 6, 7, 8, 42, 44})


_DATE_TOKEN = re.compile(
    r'"([^"]*)"'  # quoted text: 년, 월, 일
    r"|\\(.)"  # an escaped character: \- \.
    r"|\[[^\]]*\]"  # [$-412] locale, [DBNum1], [Red]: not shown
    r"|(yyyy|yy|e|mmmmm|mmmm|mmm|mm|m|dddd|ddd|dd|d|aaaa|aaa|hh|h|ss|s|am/pm|a/p|\.0+)"
    r"|([-/.,:\s年月日년월일시분초()])"  # separators shown as they are
    r"|(.)",  # anything else: a format this does not render
    re.IGNORECASE,
)


_TIME_CODES = frozenset({"h", "hh", "m", "mm", "s", "ss", "am/pm", "a/p"})


_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


_KOREAN_DAYS = "월화수목금토일"


@functools.lru_cache(maxsize=256)
def _date_format(code: str) -> tuple[tuple[tuple[str, str], ...], bool] | None:
    """A date number format read once (a sheet's date cells share a few): its tokens — (kind,
    text), kind "t" for shown text, else the lower-cased code — and whether it asks for Korean day
    names; None for a format :func:`display_date` leaves to ISO."""
    section = code.split(";", 1)[0]
    if re.search(r"\[\$-F[48]00\]", section, re.IGNORECASE):
        return None  # the system's long date or time: shown in the reader's locale
    korean = "$-412" in section or "$-ko" in section.lower()
    tokens: list[tuple[str, str]] = []
    for match in _DATE_TOKEN.finditer(section):
        quoted, escaped, code_token, separator, other = match.groups()
        if other is not None:
            return None
        if quoted is not None or escaped is not None or separator is not None:
            tokens.append(("t", quoted if quoted is not None else escaped if escaped is not None else separator))
        elif code_token is not None:
            tokens.append((code_token.lower(), code_token))
    if not any(kind in ("yyyy", "yy", "e", "d", "dd", "m", "mm", "mmm", "mmmm") for kind, _ in tokens):
        return None  # a time only: cell_text shows it
    if [text if kind == "t" else kind for kind, text in tokens[:5]] == ["yyyy", "-", "mm", "-", "dd"] and all(
            kind in _TIME_CODES or (kind == "t" and text in " :") for kind, text in tokens[5:]):
        return None  # ISO already (openpyxl's and pandas' default, yyyy-mm-dd h:mm:ss): cell_text's form
    return tuple(tokens), korean


def display_date(value: dt.datetime, code: str) -> str:
    """A date as a number format shows it (``yyyy"년" m"월" d"일"`` → ``2023년 7월 15일``,
    ``yyyy.mm.dd`` → ``2023.07.15``, ``m/d/yyyy`` → ``7/15/2023``), or "" for a format this does not
    render or that starts with the ISO date (then the caller shows it ISO, without a midnight time
    or zero seconds). The first section of the format is used; ``m`` after an
    hour or before seconds is minutes, as in Excel; ``ddd``/``dddd`` are English day names unless
    the format asks for Korean (``[$-412]``, or ``aaa``/``aaaa``)."""
    parsed = _date_format(code)
    if parsed is None:
        return ""
    tokens, korean = parsed
    twelve = any(kind in ("am/pm", "a/p") for kind, _ in tokens)
    out: list[str] = []
    for position, (kind, text) in enumerate(tokens):
        if kind == "t":
            out.append(text)
            continue
        if kind in ("m", "mm") and _is_minute(tokens, position):
            out.append(f"{value.minute:02d}" if kind == "mm" else str(value.minute))
            continue
        hour = value.hour % 12 or 12 if twelve else value.hour
        out.append({
            "yyyy": f"{value.year:04d}", "e": str(value.year), "yy": f"{value.year % 100:02d}",
            "m": str(value.month), "mm": f"{value.month:02d}", "mmm": _MONTHS[value.month - 1][:3],
            "mmmm": _MONTHS[value.month - 1], "mmmmm": _MONTHS[value.month - 1][0],
            "d": str(value.day), "dd": f"{value.day:02d}",
            "ddd": _KOREAN_DAYS[value.weekday()] if korean else _DAYS[value.weekday()][:3],
            "dddd": _KOREAN_DAYS[value.weekday()] + "요일" if korean else _DAYS[value.weekday()],
            "aaa": _KOREAN_DAYS[value.weekday()], "aaaa": _KOREAN_DAYS[value.weekday()] + "요일",
            "h": str(hour), "hh": f"{hour:02d}", "s": str(value.second), "ss": f"{value.second:02d}",
            "am/pm": ("PM" if value.hour >= 12 else "AM") if text.isupper() else ("pm" if value.hour >= 12 else "am"),
            "a/p": "P" if value.hour >= 12 else "A",
        }.get(kind, ""))
    return normalize_cell("".join(out))


_NUMBER_TOKEN = re.compile(
    r'"([^"]*)"'  # quoted text: "원", "$"
    r"|\\(.)"  # an escaped character: \( \-
    r"|\[\$([^\]\-]*)(?:-[0-9A-Fa-f]+)?\]"  # [$₩-412], [$$-409]: the currency symbol; [$-412]: nothing
    r"|\[(?:black|blue|cyan|green|magenta|red|white|yellow|color\s?\d+)\]"  # a colour: not shown
    r"|[_*](.)"  # room for a character, a fill: not shown
    r"|([0#?,.]+)"  # the digits
    r"|(%)"
    r"|([-+$():!^&'~{}<>= ]|[^\x00-\x7f])"  # shown as it is: $ - ( ), and ₩, €, 원
    r"|(.)",  # anything else (E+, @, General, [>100], [DBNum1], a fraction's /): not rendered
    re.IGNORECASE,
)


@dataclass(frozen=True)
class _NumberSection:
    """One section of a number format: the text around its digits and how they are shown."""

    before: str
    after: str
    whole_digits: int  # the 0s before the point: the least digits shown left of it
    grouped: bool  # thousands separators
    min_decimals: int  # the 0s after the point
    max_decimals: int  # the 0s and #s after the point
    percent: int  # how many %: each multiplies by 100


@functools.lru_cache(maxsize=256)
def _number_format(code: str) -> tuple[_NumberSection | None, ...] | None:
    """A number format read once (a sheet's cells share a few): its first three sections (positive,
    negative, zero), None for a section :func:`display_number` does not render; None for a format
    with no section it renders."""
    sections = code.split(";")
    if len(sections) > 4:
        return None
    parsed = tuple(_number_section(section) for section in sections[:3])
    return parsed if any(parsed) else None


def _number_section(section: str) -> _NumberSection | None:
    parts: list[str] = [""]  # the text before the digits, then (once they are found) after them
    digits = ""
    percent = 0
    for match in _NUMBER_TOKEN.finditer(section):
        quoted, escaped, currency, _, placeholders, percent_sign, literal, other = match.groups()
        if other is not None or (placeholders is not None and digits):
            return None  # not rendered, or digits in two places (000-0000, # ?/?)
        if placeholders is not None:
            digits = placeholders
            parts.append("")
            continue
        if percent_sign is not None:
            percent += 1
        parts[-1] += next((text for text in (quoted, escaped, currency, percent_sign, literal) if text is not None), "")
    whole, point, decimals = digits.partition(".")
    if not digits or "." in decimals or "," in decimals or whole.endswith(",") or not any(c in "0#?" for c in digits):
        return None  # no digits, two points, or a comma that scales (#,##0,): left as the number
    return _NumberSection(parts[0], parts[1], whole.count("0"), "," in whole, decimals.count("0"),
                          len(decimals) if point else 0, percent)


def display_number(value: float, code: str) -> str:
    """A number as a number format shows it (``"$"#,##0.00`` → ``$65.80``, ``#,##0`` → ``1,234,567``,
    ``0.0%`` → ``12.3%``, ``#,##0"원"`` → ``1,234원``, ``#,##0_);(#,##0)`` → ``(1,234)`` for a negative),
    or "" for a format this does not render (scientific, fractions, conditions, text, Korean
    numerals; the caller shows the number as it is). Rounded half away from zero on the number's
    15 significant digits, as Excel does; the section is chosen by the sign as Excel does (positive;
    negative; zero), a single section showing a negative number with a minus sign."""
    sections = _number_format(code)
    if sections is None:
        return ""
    negative = value < 0
    if negative and len(sections) > 1:
        section, sign = sections[1], ""
    elif value == 0 and len(sections) > 2:
        section, sign = sections[2], ""
    else:
        section, sign = sections[0], "-" if negative else ""
    if section is None:
        return ""
    number = abs(decimal.Decimal(format(value, ".15g") if isinstance(value, float) else value))
    number = number.scaleb(2 * section.percent).quantize(decimal.Decimal(1).scaleb(-section.max_decimals),
                                                         rounding=decimal.ROUND_HALF_UP)
    whole, _, fraction = f"{number:f}".partition(".")
    fraction = fraction.rstrip("0").ljust(section.min_decimals, "0")
    whole = whole.lstrip("0").rjust(section.whole_digits, "0")
    if section.grouped and whole:
        whole = f"{int(whole):,}"
    if not fraction and (not whole or section.max_decimals):
        return ""  # nothing shown (#,### of 0), or a point with no digits after it (0.## of 5)
    if number == 0:
        sign = ""
    shown = whole + ("." + fraction if fraction else "")
    return normalize_cell(sign + section.before + shown + section.after)


def _is_minute(tokens: Sequence[tuple[str, str]], position: int) -> bool:
    """Whether ``m``/``mm`` at ``position`` means minutes: right after an hour, or right before
    seconds (literals between them skipped), as Excel reads it."""
    for step in (-1, 1):
        index = position + step
        while 0 <= index < len(tokens) and tokens[index][0] == "t":
            index += step
        if 0 <= index < len(tokens):
            kind = tokens[index][0]
            if (step < 0 and kind in ("h", "hh")) or (step > 0 and kind in ("s", "ss")):
                return True
    return False
