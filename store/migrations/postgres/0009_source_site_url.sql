-- The site a feed belongs to (its home page): the channel's <link>, the
-- Atom alternate link or JSON Feed's home_page_url, or an imported
-- outline's htmlUrl. OPML export writes it as htmlUrl. Empty: not known.
ALTER TABLE feed_sources ADD COLUMN site_url TEXT NOT NULL DEFAULT '';
