/// Where a ``LiveInspector`` listens, and the limits that keep a slow or hostile client from
/// costing the app anything. The defaults are safe: loopback only, a handful of connections, small
/// requests, short timeouts.
public struct LiveInspectorOptions: Sendable {
    /// The address to listen on: `"127.0.0.1"` (the default, this machine only), `"::1"`, or an
    /// address of a network interface (such as a device's Wi-Fi address) to reach the page from
    /// another machine. Anyone on that network who has the URL's token can then drive the app: name
    /// an address only on a network you trust. `"0.0.0.0"` listens on every interface.
    public var address = "127.0.0.1"

    /// The port; 0 (the default) takes any free one. The URL says which.
    public var port: UInt16 = 0

    /// The page's title.
    public var title = "OresRedux live"

    /// Whether ``LiveInspector/init(recording:registry:options:)`` prints the page's URL once, on
    /// standard output. The URL is also ``LiveInspector/url``.
    public var printsURL = true

    /// The most connections open at once, pages and streams included. One more takes the place of
    /// the connection that has been sending its request for longest (which is answered
    /// `503 Service Unavailable` and closed), so clients that trickle requests cannot keep the
    /// page out; when every slot streams a page or writes a response, the newcomer is answered
    /// `503` and closed.
    public var maximumConnections = 32

    /// The most pages streaming at once; one more is answered `503 Service Unavailable`.
    public var maximumStreams = 4

    /// The longest request head (request line and headers), in bytes; a longer one is answered
    /// `431 Request Header Fields Too Large`.
    public var maximumHeadBytes = 16_384

    /// The most header lines in a request; more are answered `431`.
    public var maximumHeaderCount = 64

    /// The largest request body (commands are a few bytes of JSON); a larger one is answered
    /// `413 Content Too Large`.
    public var maximumBodyBytes = 4_096

    /// How long a client has, from connecting, to send its whole request; a slower one is answered
    /// `408 Request Timeout` and closed, so a client that sends a byte now and then cannot hold a
    /// connection.
    public var requestTimeout: Duration = .seconds(5)

    /// How long a response or a stream may wait for the client to take more bytes before the
    /// connection is closed.
    public var writeTimeout: Duration = .seconds(10)

    /// The most bytes queued for one streaming page. A page that does not keep up stops being
    /// sent updates until its queue drains.
    public var maximumStreamQueueBytes = 1 << 20

    /// How many steps a streaming page may fall behind the app. Past that, it is sent
    /// "N steps dropped, reload" and disconnected; reloading the page catches it up.
    public var maximumStreamLag = 5_000

    /// How many of the newest steps keep the app's state and action, for jumping back to them and
    /// dispatching them again. Older steps are still shown, but can no longer be jumped to.
    public var maximumKeptSteps = 1_000

    /// The defaults: loopback, any free port, the limits above.
    public init() {}
}
