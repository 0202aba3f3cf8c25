"""The release-notes query builder of the retrieval benchmark: what it reads from notes."""

from tests.bench.release_queries import entries, narrowed

NOTES = """\
==========================
Django 9.1.2 release notes
==========================

CVE-2099-0001: Potential denial-of-service in ``django.utils.text.wrap()``
=========================================================================

:func:`~django.utils.text.wrap` was subject to a potential denial-of-service
attack via very long inputs.

Second paragraph, not part of the query.

Bugfixes
========

* Fixed a crash of :meth:`.QuerySet.union` when no arguments were passed
  (:ticket:`12345`).

* Fixed a bug in ``Signal.asend()``.
* Too short.
"""


def test_bullets_and_security_sections_become_plain_queries_with_the_code_they_name() -> None:
    assert entries(NOTES) == [
        (
            "Potential denial-of-service in django.utils.text.wrap(). django.utils.text.wrap was subject"
            " to a potential denial-of-service attack via very long inputs",
            {"wrap"},
        ),
        ("Fixed a crash of QuerySet.union when no arguments were passed", {"union"}),
        ("Fixed a bug in Signal.asend()", {"asend"}),
    ]


def test_relevant_files_narrow_to_definitions_then_uses_then_stay_whole() -> None:
    sources = {"a.py": "def union(self):\n    pass\n", "b.py": "x = q.union(y)\n", "c.py": "pass\n"}
    files = sorted(sources)
    assert narrowed(files, sources, {"union"}) == ["a.py"]
    assert narrowed(files, {**sources, "a.py": "pass\n"}, {"union"}) == ["b.py"]
    assert narrowed(files, sources, {"absent"}) == files
