"""The dealer terminals' serializers are :mod:`web.terminal.serializers`; this module keeps the
old import path for the hand-flow tests (tests/handflow/test_hand_flow.py), the one importer left
outside the web. Delete it once they import from the package."""

from web.terminal.serializers import ChipMovementSerializer, FeePreviewSerializer, TerminalHandSerializer

__all__ = ["ChipMovementSerializer", "FeePreviewSerializer", "TerminalHandSerializer"]
