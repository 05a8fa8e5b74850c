"""Traffic-sign faces per country (drawn by roadtest's own code) and the gallery that shows them."""
