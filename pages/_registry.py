"""The app's pages, declared once: the navigation (``app.py``) and every "Next" link read it.

Neither streamlit nor ``core`` is imported here, so the list can be read by tests and tools
without starting anything. A page is its file under ``pages/`` (the name ``st.page_link`` and
``st.switch_page`` take, without the folder), its title in the navigation, its icon and its
URL path. The order is the navigation's; the first page is the default one.

A page renamed or removed without updating this list fails ``tests/app/test_pages_registry.py``
(the navigation, and every ``next_step(...)`` and page link written in ``pages/``, must name a
page of this list), and :func:`page_path` refuses a page that is not declared here.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PageSpec", "PAGES", "page_files", "page_spec", "page_path"]


@dataclass(frozen=True)
class PageSpec:
    """One page of the app: ``file`` under ``pages/``, ``title``, ``icon`` (a material icon
    name) and ``url_path`` (``/trade-off``)."""

    file: str
    title: str
    icon: str

    @property
    def url_path(self) -> str:
        return self.title.lower().replace(" ", "-")


PAGES: tuple[PageSpec, ...] = (
    PageSpec("0_Home.py", "Home", ":material/home:"),
    PageSpec("1_Data.py", "Data", ":material/table:"),
    PageSpec("2_Trade-off.py", "Trade-off", ":material/tune:"),
    PageSpec("2a_Evaluate.py", "Evaluate", ":material/fact_check:"),
    PageSpec("3_Confidence.py", "Confidence", ":material/verified:"),
    PageSpec("4_Effort.py", "Effort", ":material/timer:"),
    PageSpec("5_Fairness.py", "Fairness", ":material/balance:"),
    PageSpec("6_Turns.py", "Turns", ":material/forum:"),
    PageSpec("7_Scorekeeping.py", "Scorekeeping", ":material/scoreboard:"),
    PageSpec("8_ToolTalk.py", "ToolTalk", ":material/build:"),
)


def page_files() -> list[str]:
    """The declared pages' files, in the navigation's order."""
    return [p.file for p in PAGES]


def page_spec(file: str) -> PageSpec:
    """The declared page of ``file`` (``"2_Trade-off.py"``); ``ValueError`` naming the declared
    pages when there is none (a renamed page, a typo)."""
    for spec in PAGES:
        if spec.file == file:
            return spec
    raise ValueError(f"no page {file!r} is declared in pages/_registry.py; declared: "
                     f"{', '.join(page_files())}")


def page_path(file: str) -> str:
    """``pages/<file>``, the path ``st.page_link`` and ``st.switch_page`` take, of a declared
    page (``ValueError`` otherwise, see :func:`page_spec`)."""
    return f"pages/{page_spec(file).file}"
