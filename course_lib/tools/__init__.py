"""Command-line tools: the ``course-lab`` entry point, ``inspect`` and the fixture-file writer."""
