import { cuda, f32 } from "cudascript";
