"""Bad inputs shared by the library's tests, and the match that says an error names its parameter.

Every public function must refuse these with a ValueError or TypeError whose message starts
with the parameter's name (``pytest.raises(..., match=names("size_B"))``).
"""
import re

from hypothesis import settings

NAN, INF = float("nan"), float("inf")
NOT_A_FINITE_NUMBER = [NAN, INF, -INF, True, False, "1", None]   # booleans are not numbers
BAD_NON_NEGATIVE = [-1, -1e-9] + NOT_A_FINITE_NUMBER
BAD_POSITIVE = [0, 0.0] + BAD_NON_NEGATIVE
BAD_COUNT = BAD_POSITIVE + [1.5]
PROPS = settings(max_examples=200, deadline=None)


def names(param):
    """pytest.raises match: the message starts with the parameter's name."""
    return rf"^{re.escape(param)}\b"
