"""The text a parser has not decided yet, and whether more will come (h11's ``ReceiveBuffer`` is the model)."""

from __future__ import annotations


class Cursor:
    """The unread text (``text[pos:]``) and whether the input has ended.

    Readers read from ``text`` at a position and return how far they got. Reading stops before the end of the text
    only to wait for more (the one way to say "need more input"), and never once the input has ended: then what is
    still undecided is decided as it stands.
    """

    __slots__ = ("ended", "pos", "text")

    def __init__(self, text: str = "", ended: bool = False) -> None:
        self.text = text
        self.pos = 0
        self.ended = ended

    def __bool__(self) -> bool:
        """Whether there is unread text."""
        return self.pos < len(self.text)

    def add(self, text: str) -> None:
        """More input: appended to what is unread."""
        self.text = self.text[self.pos :] + text if self.pos else self.text + text
        self.pos = 0

    def end(self) -> None:
        """The input has ended."""
        self.ended = True

    def unread(self) -> str:
        return self.text[self.pos :]
