"""The turn email's page link signs its reader in: opened on any device it is that player's seat (the
link rides in the URL fragment, so no server log ever holds it)."""

from __future__ import annotations

import re

from .conftest import BASE, Site


def test_the_turn_emails_page_link_opens_the_players_seat(site: Site) -> None:
    gid = site.game("1840", ["Ann", "Bob"])
    mail = site.mails_to("Ann", 1)[-1]
    found = re.search(rf"{re.escape(BASE)}/games/{gid}/page#signin=(sl1-\S+)", mail.get_content())
    assert found, mail.get_content()
    link = found.group(1)
    me = site.client.get(f"/games/{gid}/page/me", headers={"Authorization": f"Bearer {link}"})
    assert me.status_code == 200 and me.json["name"] == "Ann"
    # Bob's mail opens Bob, not Ann
    bob = site.mails_to("Bob", 1)[-1]
    bobs = re.search(r"#signin=(sl1-\S+)", bob.get_content())
    assert bobs and bobs.group(1) != link
    assert site.client.get(f"/games/{gid}/page/me", headers={"Authorization": f"Bearer {bobs.group(1)}"}).json["name"] == "Bob"
