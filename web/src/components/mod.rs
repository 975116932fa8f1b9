//! Reusable pieces of the views: hand-written SVG charts, a treemap, a collapsible JSON tree and
//! a virtualized list. No JS libraries, nothing fetched.
