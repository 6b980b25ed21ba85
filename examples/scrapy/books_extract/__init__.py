"""An example Scrapy project fed by deepcrawl: the books of the bundled ``books`` site."""
