// SPDX-License-Identifier: Apache-2.0
#pragma once

// Wires a TimelineView to its selection panels, for whatever page composes them (the Studio's timeline page, the
// tests): the view's index goes to the panels when it loads, a selected slice to the details panel, an area to the
// area panel, and a slice clicked in the details panel is selected and revealed in the view.

namespace fathom::views {

class AreaPanel;
class SliceDetailsPanel;
class TimelineView;

/// Connects `view` with `details` and `area` (either may be nullptr) and hands them the view's current index and
/// selection. The connections end when either side is destroyed.
void connectTimelinePanels(TimelineView* view, SliceDetailsPanel* details, AreaPanel* area);

}  // namespace fathom::views
