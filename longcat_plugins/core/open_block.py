"""What the parser knows of the call block it is reading, besides its held text (``held_block.py``)."""

from __future__ import annotations

from .whitespace import WhitespaceRun


class OpenBlock:
    """The block being read: its opening tag, a name written before it, and what decides its whitespace and end."""

    __slots__ = (
        "after_call", "after_separator", "ended", "misplaced_closer", "name", "name_markup", "text_last", "whitespace",
        "wrapper",
    )  # fmt: skip

    def __init__(self) -> None:
        #: the block's opening tag (``{`` or ``[`` for calls written with no tag); None: no block is read
        self.wrapper: str | None = None
        #: a declared name written before the block, for a block whose call has none, and that name as written
        #: with the whitespace after it (content after all when the block names its call)
        self.name = ""
        self.name_markup = ""
        #: the block's tag may be the closing tag of key/value pairs written with no opening tag
        self.misplaced_closer = False
        #: the call just read ended at markup that ends its block, which never closed
        self.ended = False
        #: the last thing read in the block was text (what its whitespace follows)
        self.text_last = False
        #: the whitespace between the block's calls: markup unless text follows
        self.whitespace = WhitespaceRun()
        #: a call of the block was read (or broke off) and nothing but whitespace since: a block with no closing tag
        #: ends here unless its call separator follows
        self.after_call = False
        #: the call separator of a block with no closing tag was read, and nothing but whitespace since: a call
        #: follows, or the block ends (the separator was text)
        self.after_separator = False

    def open(self, wrapper: str | None, name: str = "", name_markup: str = "", misplaced_closer: bool = False) -> None:
        self.wrapper = wrapper
        self.name = name
        self.name_markup = name_markup
        self.misplaced_closer = misplaced_closer
        self.after_call = False
        self.after_separator = False
