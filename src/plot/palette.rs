//! What each mark of the timeline means: its colour, its shape and its
//! legend entry. The legend shows only the looks a picture uses.

use plotters::style::RGBColor;

/// How a mark is drawn.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A span of time.
    Bar,
    /// An instant, as a thin vertical line.
    Tick,
    /// An instant, as a dot.
    Dot,
}

/// One kind of mark.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Look {
    Waiting,
    BackOff,
    Running,
    RunningReady,
    Completed,
    Failed,
    Sigterm,
    Sigkill,
    Exited,
    ProbeSuccess,
    ProbeFailure,
    ProbeError,
    ConditionTrue,
    ConditionFalse,
    EndpointReady,
    EndpointServingTerminating,
    EndpointTerminating,
    EndpointNotReady,
    ProxySync,
    Ok,
    HttpError,
    Refused,
    Timeout,
    Reset,
    NoRoute,
    NotSent,
}

const GREEN: RGBColor = RGBColor(0x1a, 0x96, 0x41);
const LIGHT_GREEN: RGBColor = RGBColor(0xa6, 0xd9, 0x6a);
const AMBER: RGBColor = RGBColor(0xf2, 0xc1, 0x4e);
const GREY: RGBColor = RGBColor(0x9e, 0x9e, 0x9e);
const PALE: RGBColor = RGBColor(0xdd, 0xdd, 0xdd);
const RED: RGBColor = RGBColor(0xd7, 0x19, 0x1c);
const BLUE: RGBColor = RGBColor(0x2c, 0x7b, 0xb6);
const ORANGE: RGBColor = RGBColor(0xf5, 0x8a, 0x1f);
const PURPLE: RGBColor = RGBColor(0x7b, 0x32, 0x94);
const BROWN: RGBColor = RGBColor(0x8c, 0x51, 0x0a);
/// Text and near-black marks, in every picture.
pub const INK: RGBColor = RGBColor(0x22, 0x22, 0x22);

impl Look {
    pub fn colour(self) -> RGBColor {
        match self {
            Look::Waiting => AMBER,
            Look::Running => LIGHT_GREEN,
            Look::RunningReady | Look::ProbeSuccess | Look::EndpointReady | Look::Ok => GREEN,
            Look::Completed | Look::ProbeError | Look::NotSent => GREY,
            Look::Failed | Look::ProbeFailure | Look::Refused => RED,
            Look::ConditionTrue => BLUE,
            Look::ConditionFalse | Look::EndpointNotReady => PALE,
            Look::BackOff | Look::EndpointServingTerminating | Look::HttpError => ORANGE,
            Look::EndpointTerminating | Look::Timeout | Look::ProxySync => PURPLE,
            Look::Reset | Look::Exited => BROWN,
            Look::Sigterm => INK,
            Look::Sigkill => RED,
            Look::NoRoute => INK,
        }
    }

    pub fn shape(self) -> Shape {
        match self {
            Look::ProbeSuccess | Look::ProbeFailure | Look::ProbeError | Look::ProxySync => Shape::Tick,
            Look::Sigterm | Look::Sigkill | Look::Exited => Shape::Tick,
            Look::Ok
            | Look::HttpError
            | Look::Refused
            | Look::Timeout
            | Look::Reset
            | Look::NoRoute
            | Look::NotSent => Shape::Dot,
            _ => Shape::Bar,
        }
    }

    /// The legend row the look belongs to.
    pub fn section(self) -> &'static str {
        match self {
            Look::Waiting | Look::BackOff | Look::Running | Look::RunningReady | Look::Completed | Look::Failed => {
                "containers"
            }
            Look::Sigterm | Look::Sigkill | Look::Exited => "processes",
            Look::ProbeSuccess | Look::ProbeFailure | Look::ProbeError => "probe results",
            Look::ConditionTrue | Look::ConditionFalse => "pod conditions",
            Look::EndpointReady
            | Look::EndpointServingTerminating
            | Look::EndpointTerminating
            | Look::EndpointNotReady => "endpoints",
            Look::ProxySync => "kube-proxy",
            _ => "requests",
        }
    }

    pub fn legend(self) -> &'static str {
        match self {
            Look::Waiting => "waiting",
            Look::BackOff => "waiting: CrashLoopBackOff",
            Look::Running => "running",
            Look::RunningReady => "running, ready",
            Look::Completed => "terminated: exit 0",
            Look::Failed => "terminated: error",
            Look::Sigterm => "SIGTERM",
            Look::Sigkill => "SIGKILL",
            Look::Exited => "exited",
            Look::ProbeSuccess => "success",
            Look::ProbeFailure => "failure",
            Look::ProbeError => "error (ignored)",
            Look::ConditionTrue => "True",
            Look::ConditionFalse => "False",
            Look::EndpointReady => "ready",
            Look::EndpointServingTerminating => "serving, terminating",
            Look::EndpointTerminating => "terminating, not serving",
            Look::EndpointNotReady => "not ready",
            Look::ProxySync => "rules synced",
            Look::Ok => "HTTP 2xx",
            Look::HttpError => "HTTP error status",
            Look::Refused => "connection refused",
            Look::Timeout => "timed out",
            Look::Reset => "connection reset",
            Look::NoRoute => "no route to host",
            Look::NotSent => "not sent",
        }
    }
}
