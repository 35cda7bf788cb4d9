"""Every page of the console, imported together: the main window imports this module once its first paint is
on the screen (the pages bring pyqtgraph and numpy with the recall page's charts: about 0.5 s of CPU, which
the window does not wait for)."""

from __future__ import annotations

from gui.pages.appkb_page import AppKbPage
from gui.pages.bundles_page import BundlesPage
from gui.pages.episodes_page import EpisodesPage
from gui.pages.facts_page import FactsPage
from gui.pages.learning_page import LearningPage
from gui.pages.lessons_page import LessonsPage
from gui.pages.overview_page import OverviewPage
from gui.pages.recall_page import RecallPage
from gui.pages.skills_page import SkillsPage
from gui.pages.topics_page import TopicsPage
from gui.pages.upkeep_page import UpkeepPage

PageWidget = (
    OverviewPage
    | AppKbPage
    | EpisodesPage
    | RecallPage
    | LessonsPage
    | BundlesPage
    | SkillsPage
    | FactsPage
    | TopicsPage
    | LearningPage
    | UpkeepPage
)
"""A page of the console: a `QWidget` that is a `Page` (see `gui/pages/page.py`)."""

__all__ = [
    "AppKbPage",
    "BundlesPage",
    "EpisodesPage",
    "FactsPage",
    "LearningPage",
    "LessonsPage",
    "OverviewPage",
    "PageWidget",
    "RecallPage",
    "SkillsPage",
    "TopicsPage",
    "UpkeepPage",
]
