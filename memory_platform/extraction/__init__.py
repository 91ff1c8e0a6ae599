"""Session-end knowledge extraction (seed 001) and the knowledge it serves."""

from .extractor import ExtractionReport, SessionExtractor
from .knowledge import latest_points, sample_points

__all__ = ["ExtractionReport", "SessionExtractor", "latest_points", "sample_points"]
