// The ES module entry of the web build (dist/web/index.js): the main entry's
// names, and the same names as one object for `import dory from "dory-wire"`.

import * as api from "./index.js";

export * from "./index.js";
export default { ...api };
