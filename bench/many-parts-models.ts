// Models of many parts written in code for bench/many-parts.ts, beside the OBJ of test/fixtures/many-parts-obj.ts: an
// IFC4 building of boxed elements each with a property set, and a glTF of nodes instancing 50 meshes.
import { Document, NodeIO } from '@gltf-transform/core';
import { ifcFrame, ifcReal } from '../test/fixtures/ifc-frame.ts';
import { ifcFile } from '../test/fixtures/ifc-walls.ts';

/** How many distinct shapes the repeated-shape models draw on. */
export const REPEATED_SHAPES = 50;

/** Where part `index` of `count` stands: a square grid on the ground, 2 units apart. */
function gridPlace(index: number, count: number): [number, number] {
  const side = Math.ceil(Math.sqrt(count));
  return [(index % side) * 2, Math.floor(index / side) * 2];
}

/** The size of box `shape`: widths 0.5–1.5 and heights 0.5–2.5 that no two shapes share. */
function boxSize(shape: number): [number, number, number] {
  return [0.5 + (shape % 97) / 97, 0.5 + ((shape * 7) % 89) / 89, 0.5 + 2 * (((shape * 13) % 83) / 83)];
}

/**
 * An IFC4 building of `count` elements (`IfcBuildingElementProxy`, a box of 50 shapes on a grid), each with a
 * property set of its own (`Pset_Bench`: a label, a number and a flag) on one storey.
 */
export function manyElementsIfc(count: number): string {
  const { lines, add, guid, owner, world, up, east, body, storey, storeyPlace } = ifcFrame(
    'Bench project',
    { name: 'Level 1', elevation: 0 },
    false,
  );

  // One representation per shape, as a modelling tool writes a type's geometry once and places it many times.
  const shapes: string[] = [];
  for (let shape = 0; shape < REPEATED_SHAPES; shape++) {
    const [w, d, h] = boxSize(shape);
    const centre = add(`IFCCARTESIANPOINT((${ifcReal(w / 2)},${ifcReal(d / 2)}))`);
    const profile = add(
      `IFCRECTANGLEPROFILEDEF(.AREA.,$,${add(`IFCAXIS2PLACEMENT2D(${centre},$)`)},${ifcReal(w)},${ifcReal(d)})`,
    );
    const solid = add(`IFCEXTRUDEDAREASOLID(${profile},${world},${up},${ifcReal(h)})`);
    shapes.push(add(`IFCSHAPEREPRESENTATION(${body},'Body','SweptSolid',(${solid}))`));
  }
  const elements: string[] = [];
  for (let index = 0; index < count; index++) {
    const [x, y] = gridPlace(index, count);
    const corner = add(`IFCCARTESIANPOINT((${ifcReal(x)},${ifcReal(y)},0.))`);
    const placement = add(
      `IFCLOCALPLACEMENT(${storeyPlace},${add(`IFCAXIS2PLACEMENT3D(${corner},${up},${east})`)})`,
    );
    const shape = add(`IFCPRODUCTDEFINITIONSHAPE($,$,(${shapes[index % REPEATED_SHAPES]}))`);
    const element = add(
      `IFCBUILDINGELEMENTPROXY(${guid()},${owner},'Element ${index}',$,$,${placement},${shape},'E-${index}',.ELEMENT.)`,
    );
    const properties = [
      add(`IFCPROPERTYSINGLEVALUE('Mark',$,IFCLABEL('M-${index % 1000}'),$)`),
      add(`IFCPROPERTYSINGLEVALUE('Weight',$,IFCREAL(${ifcReal(10 + (index % 37))}),$)`),
      add(`IFCPROPERTYSINGLEVALUE('IsExternal',$,IFCBOOLEAN(${index % 2 ? '.T.' : '.F.'}),$)`),
    ];
    const pset = add(`IFCPROPERTYSET(${guid()},${owner},'Pset_Bench',$,(${properties.join(',')}))`);
    add(`IFCRELDEFINESBYPROPERTIES(${guid()},${owner},$,$,(${element}),${pset})`);
    elements.push(element);
  }
  add(`IFCRELCONTAINEDINSPATIALSTRUCTURE(${guid()},${owner},$,$,(${elements.join(',')}),${storey})`);
  return ifcFile('many-elements.ifc', 'Vitrine benchmark', lines);
}

/** The 24 corners (4 a face, flat normals) and 36 indices of box `shape`, for a glTF mesh. */
function gltfBox(shape: number): {
  positions: Float32Array<ArrayBuffer>;
  normals: Float32Array<ArrayBuffer>;
  indices: Uint16Array<ArrayBuffer>;
} {
  const [w, h, d] = boxSize(shape);
  const faces: [number[], number[][]][] = [
    [
      [0, 0, -1],
      [
        [0, 0, 0],
        [0, h, 0],
        [w, h, 0],
        [w, 0, 0],
      ],
    ],
    [
      [0, 0, 1],
      [
        [0, 0, d],
        [w, 0, d],
        [w, h, d],
        [0, h, d],
      ],
    ],
    [
      [0, -1, 0],
      [
        [0, 0, 0],
        [w, 0, 0],
        [w, 0, d],
        [0, 0, d],
      ],
    ],
    [
      [0, 1, 0],
      [
        [0, h, 0],
        [0, h, d],
        [w, h, d],
        [w, h, 0],
      ],
    ],
    [
      [-1, 0, 0],
      [
        [0, 0, 0],
        [0, 0, d],
        [0, h, d],
        [0, h, 0],
      ],
    ],
    [
      [1, 0, 0],
      [
        [w, 0, 0],
        [w, h, 0],
        [w, h, d],
        [w, 0, d],
      ],
    ],
  ];
  const positions: number[] = [];
  const normals: number[] = [];
  const indices: number[] = [];
  faces.forEach(([normal, corners], face) => {
    for (const corner of corners) {
      positions.push(...corner);
      normals.push(...normal);
    }
    const base = face * 4;
    indices.push(base, base + 1, base + 2, base, base + 2, base + 3);
  });
  return {
    positions: new Float32Array(positions),
    normals: new Float32Array(normals),
    indices: new Uint16Array(indices),
  };
}

/** A GLB of `count` nodes on a grid, each instancing one of {@link REPEATED_SHAPES} box meshes (one material). */
export async function instancedGltf(count: number): Promise<Uint8Array> {
  const document = new Document();
  const buffer = document.createBuffer();
  const material = document.createMaterial('Grey').setBaseColorFactor([0.7, 0.7, 0.7, 1]);
  const meshes = Array.from({ length: REPEATED_SHAPES }, (_, shape) => {
    const box = gltfBox(shape);
    const primitive = document
      .createPrimitive()
      .setMaterial(material)
      .setIndices(document.createAccessor().setType('SCALAR').setArray(box.indices).setBuffer(buffer))
      .setAttribute(
        'POSITION',
        document.createAccessor().setType('VEC3').setArray(box.positions).setBuffer(buffer),
      )
      .setAttribute(
        'NORMAL',
        document.createAccessor().setType('VEC3').setArray(box.normals).setBuffer(buffer),
      );
    return document.createMesh(`Shape ${shape}`).addPrimitive(primitive);
  });
  const scene = document.createScene('Scene');
  for (let index = 0; index < count; index++) {
    const [x, z] = gridPlace(index, count);
    scene.addChild(
      document
        .createNode(`Part ${index}`)
        .setMesh(meshes[index % REPEATED_SHAPES]!)
        .setTranslation([x, 0, z]),
    );
  }
  return new NodeIO().writeBinary(document);
}
