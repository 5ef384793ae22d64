"""A small element tree over the stdlib HTML parser, enough to query the report page in
tests (the page is what a browser parses; this reads it the same way, tag by tag)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = frozenset(
    ("area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
     "track", "wbr")
)  # fmt: skip


@dataclass
class Element:
    tag: str
    attrs: dict[str, str | None]
    children: list[Element | str] = field(default_factory=list)
    parent: Element | None = None

    @property
    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def iter(self) -> Iterator[Element]:
        yield self
        for c in self.children:
            if isinstance(c, Element):
                yield from c.iter()

    def find_all(self, tag: str | None = None, cls: str | None = None) -> list[Element]:
        return [
            e
            for e in self.iter()
            if (tag is None or e.tag == tag) and (cls is None or cls in e.classes)
        ]

    def find(self, tag: str | None = None, cls: str | None = None) -> Element:
        found = self.find_all(tag, cls)
        assert found, f"no <{tag} class={cls}>"
        return found[0]


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#root", {})
        self.cur = self.root

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        el = Element(tag, dict(attrs), parent=self.cur)
        self.cur.children.append(el)
        if tag not in VOID:
            self.cur = el

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.cur.children.append(Element(tag, dict(attrs), parent=self.cur))

    def handle_endtag(self, tag: str) -> None:
        node: Element | None = self.cur
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.cur = node.parent

    def handle_data(self, data: str) -> None:
        self.cur.children.append(data)


def parse(html: str) -> Element:
    b = _Builder()
    b.feed(html)
    b.close()
    return b.root
