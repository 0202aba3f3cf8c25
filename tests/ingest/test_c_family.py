"""C and C++ in a real repository: a header's language, a method declared in a header and
defined in its source file, and a function that moves from C to C++ keeping its lineage."""

from __future__ import annotations

from tests.ingest.conftest import Harness

HEADER = """#ifndef GEO_POINT_H
#define GEO_POINT_H

namespace geo {

/// A point in the plane.
class Point {
 public:
  /// Its distance to the origin.
  double Norm() const;
};

}  // namespace geo

#endif
"""
SOURCE = """#include "point.h"
#include <math.h>

namespace geo {

double Point::Norm() const { return sqrt(x_ * x_ + y_ * y_); }

}  // namespace geo
"""
C_UTIL = """#include <string.h>

/* Whether text starts with prefix. */
int starts_with(const char *text, const char *prefix)
{
    return strncmp(text, prefix, strlen(prefix)) == 0;
}
"""


def test_a_header_a_source_and_a_move_from_c_to_cpp(git_repo, tmp_path):
    h = Harness("edge", tmp_path / "state")
    try:
        git_repo.write("include/point.h", HEADER)
        git_repo.write("src/point.cc", SOURCE)
        git_repo.write("src/util.c", C_UTIL)
        git_repo.commit("geometry")
        h.sync(git_repo)
        found = {(m.payload["path"], m.payload["qualname"]): m.payload for m in h.memories(types=("structural",))}
        declared, defined = found[("include/point.h", "geo.Point.Norm")], found[("src/point.cc", "geo.Point.Norm")]
        assert (declared["language"], declared["kind"]) == ("cpp", "method")
        assert declared["docstring"] == "Its distance to the origin."
        assert (defined["language"], defined["signature"]) == ("cpp", "double Point::Norm() const")
        before = found[("src/util.c", "starts_with")]
        assert (before["language"], before["docstring"]) == ("c", "Whether text starts with prefix.")
        # the C file becomes C++, its function unchanged
        git_repo.remove("src/util.c")
        git_repo.write("src/util.cc", C_UTIL)
        git_repo.commit("build the utilities as C++")
        h.sync(git_repo)
        (after,) = [m for m in h.memories(types=("structural",)) if m.payload["qualname"] == "starts_with"]
        assert (after.payload["language"], after.payload["path"]) == ("cpp", "src/util.cc")
        assert after.payload["lineage"] == before["lineage"]
    finally:
        h.close()
